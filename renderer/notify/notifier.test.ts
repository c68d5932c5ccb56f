// @vitest-environment happy-dom
/**
 * What is notified: a question that appears, a turn that ends (finished or failed), of a
 * conversation not in view, each kind unless turned off; never a first sighting, never the
 * conversation in view in a focused window; a click opens the conversation (an attempt's: the one that asked).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testSummary } from '../store/testSummary.js';
import { makeNotifier, newsOf, setNotifySetting } from './notifier.js';

const made: Array<{ title: string; body: string | undefined; onclick: (() => void) | null }> = [];

beforeEach(() => {
  made.length = 0;
  localStorage.clear();
  class FakeNotification {
    static permission = 'granted';
    onclick: (() => void) | null = null;
    constructor(title: string, options?: NotificationOptions) {
      made.push(Object.assign(this, { title, body: options?.body }));
    }
    close(): void {}
  }
  vi.stubGlobal('Notification', FakeNotification);
});
afterEach(() => vi.unstubAllGlobals());

describe('notifications', () => {
  it('news: a new question, a turn that finished or failed; nothing for a first sighting', () => {
    const idle = testSummary('c');
    expect(newsOf(undefined, testSummary('c', { pendingPermissions: 1 }))).toBeUndefined();
    expect(newsOf(idle, testSummary('c', { pendingPermissions: 1, running: true }))).toBe('question');
    expect(newsOf(testSummary('c', { running: true }), idle)).toBe('finished');
    expect(newsOf(testSummary('c', { running: true }), testSummary('c', { lastTurnFailed: true }))).toBe('failed');
    expect(newsOf(idle, testSummary('c', { running: true }))).toBeUndefined();
  });

  it('notifies a conversation not in view, opens the one that asked on a click, and keeps quiet for a kind turned off', () => {
    const opened: string[] = [];
    let open: string | undefined = 'other';
    const notify = makeNotifier({ openConversation: () => open, open: (id) => opened.push(id), known: () => undefined });
    const attempt = { lifecycle: 'attempt' as const, attemptOf: { conversationId: 'asking', attemptsId: 's', attemptId: 'a', fromSeq: 1 } };
    notify(testSummary('qwen', { ...attempt, agentName: 'Qwen Code', title: 'Fix it — attempt by Qwen Code', running: true }));
    notify(
      testSummary('qwen', {
        ...attempt,
        agentName: 'Qwen Code',
        title: 'Fix it — attempt by Qwen Code',
        running: true,
        pendingPermissions: 1,
      }),
    );
    expect(made.map(({ title, body }) => ({ title, body }))).toEqual([
      { title: "Qwen Code's attempt is waiting for you", body: 'Fix it — attempt by Qwen Code' },
    ]);
    made[0]!.onclick?.();
    expect(opened).toEqual(['asking']);

    setNotifySetting('finished', false);
    notify(testSummary('qwen', { ...attempt, agentName: 'Qwen Code', running: false }));
    expect(made).toHaveLength(1);

    // In view, in a focused window: nothing.
    vi.spyOn(document, 'hasFocus').mockReturnValue(true);
    open = 'c';
    notify(testSummary('c', { running: true }));
    notify(testSummary('c', { lastTurnFailed: true }));
    expect(made).toHaveLength(1);
  });
});
