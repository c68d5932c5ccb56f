/** What changed in the working folder during one turn, from the checkpoints taken before and after it. */
import type { EventPayload, TranscriptEvent } from '../../../app/events/index.js';
import type { Result } from '../../../app/ipc/index.js';
import type { CheckpointStore } from './CheckpointStore.js';

/** Content larger than this is not shown as text. */
export const MAX_TEXT_BYTES = 1024 * 1024;

/** Each turn's checkpoints, from its `checkpoint.taken` events. */
export function checkpointsByTurn(
  events: readonly TranscriptEvent[],
): Map<string, Partial<Record<'before' | 'after', EventPayload<'checkpoint.taken'>>>> {
  const taken = new Map<string, Partial<Record<'before' | 'after', EventPayload<'checkpoint.taken'>>>>();
  for (const event of events) {
    if (event.type === 'checkpoint.taken') {
      taken.set(event.payload.turnId, { ...taken.get(event.payload.turnId), [event.payload.phase]: event.payload });
    }
  }
  return taken;
}

/** A file's content as a diff shows it: its text, or none (absent, or not text: too large or binary). */
export function shownText(content: Buffer | null): { text: string | null; binary: boolean } {
  if (content === null) {
    return { text: null, binary: false };
  }
  return content.length > MAX_TEXT_BYTES || content.includes(0)
    ? { text: null, binary: true }
    : { text: content.toString('utf8'), binary: false };
}

/** The checkpoint taken after the turn before `turnId` ended (the last one recorded ahead of the turn's own "before"). */
function previousAfter(events: readonly TranscriptEvent[], turnId: string): string | undefined {
  let last: string | undefined;
  for (const event of events) {
    if (event.type !== 'checkpoint.taken') {
      continue;
    }
    if (event.payload.turnId === turnId && event.payload.phase === 'before') {
      return last;
    }
    if (event.payload.phase === 'after' && event.payload.turnId !== turnId) {
      last = event.payload.checkpointId;
    }
  }
  return undefined;
}

/**
 * The turn's file changes, or why they cannot be told; and what changed in the folder between
 * the end of the turn before and this turn's start (by the person, or by something left running).
 */
export function turnChanges(checkpoints: CheckpointStore, events: readonly TranscriptEvent[], turnId: string): Result<'listTurnChanges'> {
  const { before, after } = checkpointsByTurn(events).get(turnId) ?? {};
  const approximate = before?.approximate === true;
  if (!before || !after) {
    return {
      changes: [],
      sinceLastTurn: [],
      approximate,
      unavailable: !before ? 'No checkpoint was taken before this turn.' : 'The checkpoint after this turn is not taken yet.',
    };
  }
  if (!before.checkpointId || !after.checkpointId) {
    return {
      changes: [],
      sinceLastTurn: [],
      approximate,
      unavailable: `No checkpoint could be taken: ${before.error ?? after.error ?? 'unknown reason'}.`,
    };
  }
  const text = (hash: string | undefined): { text: string | null; binary: boolean } =>
    shownText(hash === undefined ? null : checkpoints.content(hash));
  const shown = (from: string, to: string): Result<'listTurnChanges'>['changes'] =>
    checkpoints.changes(from, to).map((change) => {
      const was = text(change.before?.hash);
      const now = text(change.after?.hash);
      return { path: change.path, change: change.change, before: was.text, after: now.text, binary: was.binary || now.binary };
    });
  const previous = previousAfter(events, turnId);
  return {
    changes: shown(before.checkpointId, after.checkpointId),
    sinceLastTurn: previous ? shown(previous, before.checkpointId) : [],
    approximate,
    unavailable: null,
  };
}
