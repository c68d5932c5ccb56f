/**
 * What joins the asking conversation when an attempt is kept: the attempt's own turns as they
 * were, less its session and its copy's checkpoints, with the working folder's checkpoints in their
 * place (before its first turn, after its last), so a rewind puts back what Keep wrote.
 */
import type { EventDraft, TranscriptEvent } from '../../../app/events/index.js';
import type { Checkpoint } from '../checkpoints/CheckpointStore.js';

/** Event types of an attempt's own turns that stay with it when it is kept: its session and its copy's checkpoints. */
const NOT_KEPT = new Set([
  'session.bound',
  'checkpoint.taken',
  'conversation.renamed',
  'conversation.attempt',
  'conversation.branched',
  'binding.changed',
]);

/** `checkpoint` recorded as taken before or after `turnId`. */
export function checkpointTaken(
  turnId: string,
  phase: 'before' | 'after',
  checkpoint: Pick<Checkpoint, 'checkpointId' | 'files' | 'tooLarge' | 'failed'>,
): EventDraft {
  const { checkpointId, files, tooLarge, failed } = checkpoint;
  return { type: 'checkpoint.taken', payload: { turnId, phase, checkpointId, files, tooLarge, failed } };
}

/** The attempt's own events as drafts for the asking conversation, the working folder's `before` and `after` checkpoints in place. */
export function keptTurns(own: readonly TranscriptEvent[], before: Checkpoint, after: Checkpoint): EventDraft[] {
  const turnIds = own.flatMap((event) => (event.type === 'turn.started' ? [event.payload.turnId] : []));
  const first = turnIds[0];
  const last = turnIds.at(-1);
  const result: EventDraft[] = [];
  for (const event of own) {
    if (NOT_KEPT.has(event.type)) {
      continue;
    }
    result.push({ type: event.type, payload: event.payload } as EventDraft);
    if (first !== undefined && event.type === 'turn.started' && event.payload.turnId === first) {
      result.push(checkpointTaken(first, 'before', before));
    }
  }
  if (last !== undefined) {
    result.push(checkpointTaken(last, 'after', after));
  }
  return result;
}
