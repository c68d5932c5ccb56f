import { describe, expect, it, vi } from 'vitest';
import { InvalidRequestError } from '../../../app/errors.js';
import { createBatonStore } from '../store.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { testApi } from '../testApi.js';
import { testSummary } from '../testSummary.js';
import type { ComposerAttachment } from '../types.js';

const attachment = (id: string): ComposerAttachment => ({ id, label: id, attachment: { type: 'file', path: `${id}.md` } });

/** A store with conversation "c" open and `text` in its box. */
function openWith(text: string, answers: Parameters<typeof testApi>[0] = {}) {
  const { api, calls } = testApi(answers);
  const store = createBatonStore(api);
  store.setState({ selection: { kind: 'conversation', conversationId: 'c' }, composer: { c: text } });
  return { store, calls };
}

/** A promise and the function that settles it. */
function held<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe('the follow-up queue', () => {
  it('takes nothing while the message in the box is being sent (a fast second Enter never sends it twice)', async () => {
    const answer = held<{ turnId: string; seq: number }>();
    const { store, calls } = openWith('only once', { sendMessage: () => answer.promise });
    const sending = store.getState().send();
    // The turn has started (the host pushed it) while the box still holds the message being sent.
    store.getState().queue();
    expect(store.getState().queued.c).toBeUndefined();
    answer.resolve({ turnId: 't1', seq: 3 });
    await sending;
    expect(calls.filter((call) => call.method === 'sendMessage')).toHaveLength(1);
    expect(store.getState().composer.c).toBe('');
  });

  it('queues the box with what was attached, and empties the box', () => {
    const { store } = openWith('  and then this  ');
    store.getState().addAttachment('c', attachment('a'));
    store.getState().queue();
    const state = store.getState();
    expect(state.queued.c).toEqual({ text: 'and then this', attachments: [attachment('a')] });
    expect(state.composer.c).toBe('');
    expect(state.attachments.c).toEqual([]);
  });

  it('puts a follow-up taken back in the box, setting what was written since aside whole, and asks for focus in the box', () => {
    const { store } = openWith('first');
    store.getState().addAttachment('c', attachment('a'));
    store.getState().queue();
    store.getState().setComposer('c', 'written since');
    store.getState().addAttachment('c', attachment('b'));
    const focusBefore = store.getState().messageBoxFocus;
    store.getState().unqueue('c');
    const state = store.getState();
    expect(state.queued.c).toBeUndefined();
    expect(state.composer.c).toBe('first');
    expect(state.setAside.c).toBe('written since');
    expect(state.attachments.c?.map((entry) => entry.id)).toEqual(['a', 'b']);
    expect(state.messageBoxFocus).toBe(focusBefore + 1);
  });

  it('sends the queued follow-up with its attachments once the turn ends', async () => {
    const { store, calls } = openWith('next', { sendMessage: () => ({ turnId: 't2', seq: 9 }) });
    store.getState().addAttachment('c', attachment('a'));
    store.getState().queue();
    await store.getState().sendQueued('c');
    expect(calls).toEqual([
      { method: 'sendMessage', params: { conversationId: 'c', text: 'next', attachments: [{ type: 'file', path: 'a.md' }] } },
    ]);
    expect(store.getState().queued.c).toBeUndefined();
  });

  it('loses nothing when the queued follow-up is refused: it goes back into the box and the error shows', async () => {
    const { store } = openWith('next', { sendMessage: () => Promise.reject(new InvalidRequestError('refused')) });
    store.getState().queue();
    store.getState().setComposer('c', 'typed meanwhile');
    await store.getState().sendQueued('c');
    expect(store.getState().composer.c).toBe('next');
    expect(store.getState().setAside.c).toBe('typed meanwhile');
    expect(store.getState().error?.message).toBe('refused');
  });

  it('keeps a follow-up queued when the turn ended before it could be steered in', async () => {
    const { store } = openWith('now please', { steerMessage: () => ({ steered: false }) });
    store.getState().queue();
    await store.getState().steerQueued('c');
    expect(store.getState().queued.c?.text).toBe('now please');
  });
});

describe('the message box around a send', () => {
  it('takes only what was sent out of the box: what was typed and attached meanwhile stays', async () => {
    const answer = held<{ turnId: string; seq: number }>();
    const { store } = openWith('hello', { sendMessage: () => answer.promise });
    store.getState().addAttachment('c', attachment('sent'));
    const sending = store.getState().send();
    expect(store.getState().sending).toEqual({ c: expect.any(Number) });
    store.getState().setComposer('c', 'hello and more');
    store.getState().addAttachment('c', attachment('later'));
    answer.resolve({ turnId: 't', seq: 3 });
    await sending;
    expect(store.getState().composer.c).toBe('and more');
    expect(store.getState().attachments.c?.map((entry) => entry.id)).toEqual(['later']);
    expect(store.getState().sending).toEqual({});
  });

  it('keeps the message in the box when sending fails', async () => {
    const { store } = openWith('hello', { sendMessage: () => Promise.reject(new InvalidRequestError('no agent')) });
    await store.getState().send();
    expect(store.getState().composer.c).toBe('hello');
    expect(store.getState().error?.message).toBe('no agent');
  });

  it('"Edit and resend" puts the message in the box, the draft set aside (never glued on, never lost), and asks for focus; the draft comes back once it is sent', async () => {
    const { store } = openWith('my draft', { sendMessage: () => ({ turnId: 't', seq: 3 }) });
    store.getState().editMessage('the earlier message');
    expect(store.getState().composer.c).toBe('the earlier message');
    expect(store.getState().setAside.c).toBe('my draft');
    expect(store.getState().messageBoxFocus).toBe(1);
    store.getState().swapSetAside('c');
    expect(store.getState().composer.c).toBe('my draft');
    expect(store.getState().setAside.c).toBe('the earlier message');
    store.getState().swapSetAside('c');
    await store.getState().send();
    expect(store.getState().composer.c).toBe('my draft');
    expect(store.getState().setAside.c).toBeUndefined();
  });

  it('sends to the agent picked for the next turn, then forgets the pick', async () => {
    const { store, calls } = openWith('over to you', { sendMessage: () => ({ turnId: 't', seq: 2 }) });
    store.setState({ nextAgent: { c: 'codex' } });
    await store.getState().send();
    expect(calls[0]).toEqual({ method: 'sendMessage', params: { conversationId: 'c', text: 'over to you', agentId: 'codex' } });
    expect(store.getState().nextAgent).toEqual({});
  });
});

describe('one Enter, one message', () => {
  it("sends a new conversation's first message once, however fast Enter comes twice", async () => {
    const created = held<{ conversation: ConversationSummary }>();
    const { api, calls } = testApi({
      newConversation: () => created.promise,
      sendMessage: () => ({ turnId: 't', seq: 2 }),
      closeEarlySession: () => ({ closed: true }),
    });
    const store = createBatonStore(api);
    store.setState({ selection: { kind: 'draft' }, draft: { agentId: 'gemini', cwd: '/w' }, composer: { draft: 'hello twice' } });
    const first = store.getState().send();
    const second = store.getState().send();
    created.resolve({ conversation: testSummary('new') });
    await Promise.all([first, second]);
    // And once more after it was taken: the box is empty, nothing goes.
    await store.getState().send();
    expect(calls.filter((call) => call.method === 'newConversation')).toHaveLength(1);
    expect(calls.filter((call) => call.method === 'sendMessage')).toEqual([
      { method: 'sendMessage', params: { conversationId: 'new', text: 'hello twice' } },
    ]);
  });

  it("sends the next new conversation's message while the one before is still on its way", async () => {
    const firstAnswer = held<{ turnId: string; seq: number }>();
    const made: string[] = [];
    const { api, calls } = testApi({
      newConversation: () => {
        made.push(made.length === 0 ? 'one' : 'two');
        return { conversation: testSummary(made.at(-1)!) };
      },
      sendMessage: (params) => (params.conversationId === 'one' ? firstAnswer.promise : { turnId: 't2', seq: 2 }),
      closeEarlySession: () => ({ closed: true }),
    });
    const store = createBatonStore(api);
    store.setState({ selection: { kind: 'draft' }, draft: { agentId: 'gemini', cwd: '/w' }, composer: { draft: 'first talk' } });
    const first = store.getState().send();
    await vi.waitFor(() => expect(calls.some((call) => call.method === 'sendMessage')).toBe(true));
    // The first message is still on its way: its conversation's box holds it and takes no second Enter.
    expect(store.getState().sending).toEqual({ one: expect.any(Number) });
    store.getState().queue();
    expect(store.getState().queued.one).toBeUndefined();
    // A new conversation meanwhile is sent at once.
    store.setState({ selection: { kind: 'draft' }, composer: { ...store.getState().composer, draft: 'second talk' } });
    await store.getState().send();
    expect(calls.filter((call) => call.method === 'sendMessage').map((call) => call.params)).toEqual([
      { conversationId: 'one', text: 'first talk' },
      { conversationId: 'two', text: 'second talk' },
    ]);
    expect(store.getState().sending).toEqual({ one: expect.any(Number) });
    firstAnswer.resolve({ turnId: 't1', seq: 2 });
    await first;
    expect(store.getState().sending).toEqual({});
    expect(store.getState().composer).toMatchObject({ one: '', two: '', draft: '' });
  });
});
