import { describe, expect, it } from 'vitest';
import type { TranscriptEvent } from '../events/index.js';
import { summarize, summarizeAll, titleFromMessage } from './summary.js';

describe('titleFromMessage', () => {
  it('takes the first line and shortens long ones at a word', () => {
    expect(titleFromMessage('  Fix the login bug\nIt fails on Safari')).toBe('Fix the login bug');
    const long = titleFromMessage('Please refactor the conversation service so that turns and sessions live in separate files');
    expect(long.endsWith('…')).toBe(true);
    expect(long.length).toBeLessThanOrEqual(61);
    expect(titleFromMessage('   ')).toBe('New conversation');
    // Identifiers keep their underscores; emphasis loses its markers.
    expect(titleFromMessage('Count slowly, SLOW_STREAM 6 and read_file_at')).toBe('Count slowly, SLOW_STREAM 6 and read_file_at');
    expect(titleFromMessage('A __bold__ and _quiet_ word')).toBe('A bold and quiet word');
  });
});

describe('summarize', () => {
  it('counts turns, titles from the first message, tracks running', () => {
    const at = '2026-01-01T00:00:00Z';
    let summary = summarize(undefined, {
      conversationId: 'c',
      seq: 1,
      at,
      v: 1,
      type: 'conversation.created',
      payload: { title: '', agentId: 'a', agentName: 'A', cwd: '/' },
    });
    summary = summarize(summary, {
      conversationId: 'c',
      seq: 2,
      at,
      v: 1,
      type: 'turn.started',
      payload: { turnId: 't', agentId: 'a', agentName: 'A', text: 'First question' },
    });
    expect(summary).toMatchObject({ title: 'First question', turnCount: 1, running: true });
    summary = summarize(summary, {
      conversationId: 'c',
      seq: 3,
      at,
      v: 1,
      type: 'turn.ended',
      payload: { turnId: 't', outcome: 'completed' },
    });
    summary = summarize(summary, {
      conversationId: 'c',
      seq: 4,
      at,
      v: 1,
      type: 'turn.started',
      payload: { turnId: 'u', agentId: 'a', agentName: 'A', text: 'Second' },
    });
    expect(summary).toMatchObject({ title: 'First question', turnCount: 2, preview: 'Second', lastSeq: 4 });
    expect(
      summarize(undefined, { conversationId: 'c', seq: 9, at, v: 1, type: 'notice', payload: { severity: 'info', text: 'x' } }),
    ).toBeUndefined();
  });

  it('titles a conversation whose first message went to several agents by that message (item 9)', () => {
    const at = '2026-01-01T00:00:00Z';
    const created = summarize(undefined, {
      conversationId: 'c',
      seq: 1,
      at,
      v: 1,
      type: 'conversation.created',
      payload: { title: '', agentId: 'a', agentName: 'A', cwd: '/proj' },
    });
    const attempt = { attemptId: 'x', agentId: 'a', agentName: 'A', conversationId: 'cx', folder: '/copies/x', kind: 'copy' as const };
    const asked = summarize(created, {
      conversationId: 'c',
      seq: 2,
      at,
      v: 1,
      type: 'attempts.started',
      payload: { attemptsId: 's', text: 'Make the parser faster\nwith details', attempts: [attempt, { ...attempt, attemptId: 'y' }] },
    });
    expect(asked).toMatchObject({ title: 'Make the parser faster', titleFrom: 'message', preview: 'Make the parser faster\nwith details' });
    // A later ask keeps the title.
    const again = summarize(asked, {
      conversationId: 'c',
      seq: 3,
      at,
      v: 1,
      type: 'attempts.started',
      payload: { attemptsId: 't', text: 'Something else', attempts: [attempt, { ...attempt, attemptId: 'y' }] },
    });
    expect(again?.title).toBe('Make the parser faster');
    // The store folds in batches: the same.
    const batch = summarizeAll(created, [
      {
        conversationId: 'c',
        seq: 2,
        at,
        v: 1,
        type: 'attempts.started',
        payload: { attemptsId: 's', text: 'Make the parser faster', attempts: [attempt, { ...attempt, attemptId: 'y' }] },
      },
    ]);
    expect(batch?.title).toBe('Make the parser faster');
  });

  it('marks a conversation whose last turn failed, until its next message', () => {
    const at = '2026-01-01T00:00:00Z';
    let summary = summarize(undefined, {
      conversationId: 'c',
      seq: 1,
      at,
      v: 1,
      type: 'conversation.created',
      payload: { title: '', agentId: 'a', agentName: 'A', cwd: '/' },
    });
    summary = summarize(summary, {
      conversationId: 'c',
      seq: 2,
      at,
      v: 1,
      type: 'turn.started',
      payload: { turnId: 't', agentId: 'a', agentName: 'A', text: 'One' },
    });
    summary = summarize(summary, {
      conversationId: 'c',
      seq: 3,
      at,
      v: 1,
      type: 'turn.ended',
      payload: { turnId: 't', outcome: 'failed', error: { code: 'AgentExited', message: 'gone' } },
    });
    expect(summary).toMatchObject({ lastTurnFailed: true, running: false });
    summary = summarize(summary, {
      conversationId: 'c',
      seq: 4,
      at,
      v: 1,
      type: 'turn.started',
      payload: { turnId: 'u', agentId: 'a', agentName: 'A', text: 'Two' },
    });
    expect(summary).toMatchObject({ lastTurnFailed: false });
    summary = summarize(summary, {
      conversationId: 'c',
      seq: 5,
      at,
      v: 1,
      type: 'turn.ended',
      payload: { turnId: 'u', outcome: 'cancelled' },
    });
    expect(summary).toMatchObject({ lastTurnFailed: false });
  });

  it("takes the agent's session title over one made from the first message, never over the person's", () => {
    const at = '2026-01-01T00:00:00Z';
    const created = summarize(undefined, {
      conversationId: 'c',
      seq: 1,
      at,
      v: 1,
      type: 'conversation.created',
      payload: { title: '', agentId: 'a', agentName: 'A', cwd: '/' },
    });
    const first = summarize(created, {
      conversationId: 'c',
      seq: 2,
      at,
      v: 1,
      type: 'turn.started',
      payload: { turnId: 't', agentId: 'a', agentName: 'A', text: 'hi' },
    });
    expect(first).toMatchObject({ title: 'hi', titleFrom: 'message' });
    const titled = summarize(first, {
      conversationId: 'c',
      seq: 3,
      at,
      v: 1,
      type: 'session.info',
      payload: { title: 'Fixing the **login** flow' },
    });
    expect(titled).toMatchObject({ title: 'Fixing the login flow', titleFrom: 'agent' });
    // A later agent title still replaces the agent's earlier one; a null title changes nothing.
    expect(summarize(titled, { conversationId: 'c', seq: 4, at, v: 1, type: 'session.info', payload: { title: null } })).toMatchObject({
      title: 'Fixing the login flow',
    });
    const renamed = summarize(titled, { conversationId: 'c', seq: 4, at, v: 1, type: 'conversation.renamed', payload: { title: 'Mine' } });
    expect(
      summarize(renamed, { conversationId: 'c', seq: 5, at, v: 1, type: 'session.info', payload: { title: 'Agent title' } }),
    ).toMatchObject({ title: 'Mine', titleFrom: 'person' });
    // Once another agent took the conversation over, its session's title is not the conversation's.
    const handedOn = summarize(first, {
      conversationId: 'c',
      seq: 3,
      at,
      v: 1,
      type: 'turn.started',
      payload: { turnId: 't2', agentId: 'b', agentName: 'B', text: 'and now you' },
    });
    expect(handedOn?.agents).toHaveLength(2);
    expect(
      summarize(handedOn, { conversationId: 'c', seq: 4, at, v: 1, type: 'session.info', payload: { title: 'and now you' } }),
    ).toMatchObject({ title: 'hi', titleFrom: 'message' });
    // A title given at creation, and a row from before titles had a source, are kept.
    const given = summarize(undefined, {
      conversationId: 'c',
      seq: 1,
      at,
      v: 1,
      type: 'conversation.created',
      payload: { title: 'Given', agentId: 'a', agentName: 'A', cwd: '/' },
    });
    expect(
      summarize(given, { conversationId: 'c', seq: 2, at, v: 1, type: 'session.info', payload: { title: 'Agent title' } }),
    ).toMatchObject({ title: 'Given' });
    const { titleFrom: _unknown, ...old } = first!;
    expect(
      summarize(old, { conversationId: 'c', seq: 3, at, v: 1, type: 'session.info', payload: { title: 'Agent title' } }),
    ).toMatchObject({ title: 'hi' });
  });
});

/** An event of conversation "c", one second apart by seq. */
const event = (seq: number, type: string, payload: unknown): TranscriptEvent =>
  ({ conversationId: 'c', seq, at: `2026-01-01T00:00:${String(seq).padStart(2, '0')}Z`, v: 1, type, payload }) as TranscriptEvent;

describe('summarizeAll', () => {
  it('folds a batch exactly as summarize does one event at a time', () => {
    const events = [
      event(1, 'conversation.created', { title: '', agentId: 'a', agentName: 'A', cwd: '/' }),
      event(2, 'turn.started', { turnId: 't', agentId: 'a', agentName: 'A', text: 'Hi there' }),
      event(3, 'message.chunk', { turnId: 't', text: 'x' }),
      event(4, 'message.chunk', { turnId: 't', text: 'y' }),
      event(5, 'turn.ended', { turnId: 't', outcome: 'completed' }),
      event(6, 'conversation.archived', {}),
      event(7, 'usage', { turnId: 't', used: 1, size: 2 }),
      event(8, 'session.info', { title: 'From the agent' }),
      { conversationId: 'c', seq: 9, at: '2099-01-01T00:00:00Z', v: 9, type: 'future.thing', payload: {}, unknown: true as const },
    ];
    const oneByOne = events.reduce<ReturnType<typeof summarize>>((summary, next) => summarize(summary, next), undefined);
    expect(summarizeAll(undefined, events)).toEqual(oneByOne);
    for (let split = 1; split < events.length; split += 1) {
      expect(summarizeAll(summarizeAll(undefined, events.slice(0, split)), events.slice(split))).toEqual(oneByOne);
    }
  });

  it('a change of settings keeps the conversation where it is in the list (its time of activity unchanged)', () => {
    const events = [
      event(1, 'conversation.created', { title: '', agentId: 'a', agentName: 'A', cwd: '/' }),
      event(2, 'turn.started', { turnId: 't', agentId: 'a', agentName: 'A', text: 'Hi there' }),
      event(3, 'turn.ended', { turnId: 't', outcome: 'completed' }),
      event(4, 'toolbox.set', { servers: [] }),
      event(5, 'instructions.set', { text: 'Be brief', intent: 'add' }),
      event(6, 'session.option.chosen', { optionId: 'mode', value: 'plan' }),
    ];
    const oneByOne = events.reduce<ReturnType<typeof summarize>>((summary, next) => summarize(summary, next), undefined);
    expect(oneByOne?.updatedAt).toBe('2026-01-01T00:00:03Z');
    expect(oneByOne?.lastSeq).toBe(6);
    for (let split = 1; split < events.length; split += 1) {
      expect(summarizeAll(summarizeAll(undefined, events.slice(0, split)), events.slice(split))).toEqual(oneByOne);
    }
  });
});
