/** What changed in the working folder during one turn, from the checkpoints taken before and after it. */
import type { EventPayload, TranscriptEvent } from '../../../app/events/index.js';
import type { Result } from '../../../app/ipc/index.js';
import type { CheckpointStore } from './CheckpointStore.js';

/** Content larger than this is not shown as text. */
const MAX_TEXT_BYTES = 1024 * 1024;

/** Each turn's checkpoints, from its `checkpoint.taken` events. */
export function checkpointsByTurn(events: readonly TranscriptEvent[]): Map<string, Partial<Record<'before' | 'after', EventPayload<'checkpoint.taken'>>>> {
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
  return content.length > MAX_TEXT_BYTES || content.includes(0) ? { text: null, binary: true } : { text: content.toString('utf8'), binary: false };
}

/** The turn's file changes, or why they cannot be told. */
export function turnChanges(checkpoints: CheckpointStore, events: readonly TranscriptEvent[], turnId: string): Result<'listTurnChanges'> {
  const { before, after } = checkpointsByTurn(events).get(turnId) ?? {};
  if (!before || !after) {
    return { changes: [], unavailable: !before ? 'No checkpoint was taken before this turn.' : 'The checkpoint after this turn is not taken yet.' };
  }
  if (!before.checkpointId || !after.checkpointId) {
    return { changes: [], unavailable: `No checkpoint could be taken: ${before.error ?? after.error ?? 'unknown reason'}.` };
  }
  const text = (hash: string | undefined): { text: string | null; binary: boolean } => shownText(hash === undefined ? null : checkpoints.content(hash));
  return {
    changes: checkpoints.changes(before.checkpointId, after.checkpointId).map((change) => {
      const was = text(change.before?.hash);
      const now = text(change.after?.hash);
      return { path: change.path, change: change.change, before: was.text, after: now.text, binary: was.binary || now.binary };
    }),
    unavailable: null,
  };
}
