import { describe, expect, it } from 'vitest';
import { emptyTranscript } from '../../../app/transcript/index.js';
import { createBatonStore } from '../store.js';
import { testApi, type Answers } from '../testApi.js';
import { bufferedTail } from '../transcriptBuffer.js';

/** A store with conversation "c" open: one message (turn "t1", by agent "gemini"), and `draft` in its box. */
function openWith(draft: string, answers: Answers) {
  const { api, calls } = testApi(answers);
  const store = createBatonStore(api);
  const base = bufferedTail(emptyTranscript('c'), 1, []);
  const state = {
    ...base.state,
    turns: {
      t1: {
        turnId: 't1',
        agentId: 'gemini',
        agentName: 'Gemini',
        status: 'failed' as const,
        stopReason: undefined,
        startedAt: '2026-01-01T00:00:00Z',
      },
    },
    items: [{ kind: 'user' as const, key: '2', turnId: 't1', text: 'Hello Gemini', at: '2026-01-01T00:00:00Z' }],
  };
  store.setState({
    selection: { kind: 'conversation', conversationId: 'c' },
    composer: { c: draft },
    transcripts: { c: { ...base, state } },
  });
  return { store, calls };
}

describe('going back', () => {
  it('a rewind puts the message back in the box, the draft there set aside, and asks for focus', async () => {
    const { store, calls } = openWith('my draft', {
      previewRewind: () => ({ setAside: [{ turnId: 't1', text: 'Hello Gemini', at: '' }], files: [], cannot: [], unavailable: null }),
      rewindConversation: () => ({ rewindId: 'r', text: 'Hello Gemini', changed: [], failed: [] }),
    });
    await store.getState().openRewind('t1');
    expect(store.getState().rewindDialog?.preview?.setAside).toHaveLength(1);
    const focus = store.getState().messageBoxFocus;
    await store.getState().confirmRewind();
    expect(calls.map((call) => call.method)).toEqual(['previewRewind', 'rewindConversation']);
    expect(calls[1]?.params).toEqual({ conversationId: 'c', turnId: 't1', keepFiles: false, overwrite: [] });
    expect(store.getState().rewindDialog).toBeNull();
    expect(store.getState().composer.c).toBe('Hello Gemini');
    expect(store.getState().setAside.c).toBe('my draft');
    expect(store.getState().messageBoxFocus).toBe(focus + 1);
  });

  it('"Edit and resend" of the last message with no file to put back needs no dialog; with files, the dialog asks', async () => {
    const plain = openWith('my draft', {
      previewRewind: () => ({ setAside: [{ turnId: 't1', text: 'Hello Gemini', at: '' }], files: [], cannot: [], unavailable: null }),
      rewindConversation: () => ({ rewindId: 'r', text: 'Hello Gemini', changed: [], failed: [] }),
    });
    await plain.store.getState().editAndResend('t1');
    expect(plain.calls.map((call) => call.method)).toEqual(['previewRewind', 'rewindConversation']);
    expect(plain.calls[1]?.params).toEqual({ conversationId: 'c', turnId: 't1', keepFiles: true, overwrite: [] });
    expect(plain.store.getState().rewindDialog).toBeNull();
    expect(plain.store.getState().composer.c).toBe('Hello Gemini');
    expect(plain.store.getState().setAside.c).toBe('my draft');
    const withFiles = openWith('', {
      previewRewind: () => ({
        setAside: [{ turnId: 't1', text: 'Hello Gemini', at: '' }],
        files: [{ path: 'a.txt', action: 'restored', changedByYou: false, outsideTurn: false, before: 'b', after: 'a', binary: false }],
        cannot: [],
        unavailable: null,
      }),
    });
    await withFiles.store.getState().editAndResend('t1');
    expect(withFiles.calls.map((call) => call.method)).toEqual(['previewRewind', 'previewRewind']);
    expect(withFiles.store.getState().rewindDialog?.turnId).toBe('t1');
  });

  it('a refusal resolved from its buttons: the setting for that agent first, then the message again; "this time" goes without the instructions', async () => {
    const answers: Answers = {
      setAgentInstructionSettings: () => ({}),
      rewindConversation: () => ({ rewindId: 'r', text: 'Hello Gemini', changed: [], failed: [] }),
      sendMessage: () => ({ turnId: 't2', seq: 9 }),
    };
    const off = openWith('', answers);
    await off.store.getState().resolveRefusal('t1', 'off');
    expect(off.calls).toEqual([
      { method: 'setAgentInstructionSettings', params: { agentId: 'gemini', settings: { off: true } } },
      { method: 'rewindConversation', params: { conversationId: 'c', turnId: 't1', keepFiles: true, overwrite: [], retry: true } },
      { method: 'sendMessage', params: { conversationId: 'c', text: 'Hello Gemini' } },
    ]);
    const once = openWith('', answers);
    await once.store.getState().resolveRefusal('t1', 'without');
    expect(once.calls.map((call) => call.method)).toEqual(['rewindConversation', 'sendMessage']);
    expect(once.calls[1]?.params).toEqual({ conversationId: 'c', text: 'Hello Gemini', withoutInstructions: true });
  });
});
