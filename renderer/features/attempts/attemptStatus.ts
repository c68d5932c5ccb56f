/** An attempt's state in words, and whether it can be kept, from its own turns. */
import type { AttemptView, TranscriptItem, TurnState } from '../../../app/transcript/index.js';

/** What an attempt's turns say of its state, in words. */
export function statusOf(attempt: AttemptView, turns: readonly Pick<TurnState, 'status'>[]): string {
  if (attempt.state === 'preparing') {
    return 'making its copy…';
  }
  if (attempt.state === 'failed') {
    return 'could not start';
  }
  const last = turns.at(-1);
  switch (last?.status) {
    case undefined:
    case 'accepted':
    case 'running':
      return 'working…';
    case 'completed':
      return 'done';
    case 'cancelled':
      return 'stopped';
    case 'failed':
      return 'failed';
    case 'interrupted':
      return 'interrupted';
  }
}

/** The class that colours an attempt's status ("attempt-done", "attempt-failed"…). */
export function statusClass(status: string): string {
  return `attempt-${status.replace(/[^a-z]/g, '')}`;
}

/**
 * What an attempt's tab says: as {@link statusOf}, and "waiting for you" while it works and a
 * question of one of its own turns (`own`), or a form it asked for, waits for the person's answer.
 */
export function tabStatusOf(
  attempt: AttemptView,
  turns: readonly Pick<TurnState, 'status'>[],
  items: readonly TranscriptItem[],
  own: ReadonlySet<string>,
): string {
  const said = statusOf(attempt, turns);
  const waiting = items.some(
    (entry) =>
      (entry.kind === 'permission' && entry.decision === undefined && own.has(entry.turnId)) ||
      (entry.kind === 'elicitation' && entry.answer === undefined),
  );
  return waiting && said === 'working…' ? 'waiting for you' : said;
}

/**
 * "Keep this one" is offered once the attempt's copy is made, while it works (disabled then), and
 * after a turn of its own that did not fail: an attempt whose every turn failed has nothing to keep.
 */
export function keepOffered(attempt: AttemptView, turns: readonly Pick<TurnState, 'status'>[]): boolean {
  if (attempt.state !== 'prepared') {
    return false;
  }
  return turns.length === 0 || turns.some((turn) => turn.status !== 'failed');
}
