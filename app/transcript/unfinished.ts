/** What closes a transcript left open by a process that is gone: unanswered questions withdrawn, unfinished turns interrupted. */
import type { EventDraft } from '../events/index.js';
import type { TranscriptState } from './state.js';

/** Drafts that close every unfinished turn of `state` as interrupted (none when all are finished). */
export function interruptUnfinished(state: TranscriptState): EventDraft[] {
  const unfinished = Object.values(state.turns).filter((turn) => turn.status === 'accepted' || turn.status === 'running');
  const open = new Set(unfinished.map((turn) => turn.turnId));
  const withdrawn = state.items.flatMap((item): EventDraft[] =>
    item.kind === 'permission' && !item.decision && open.has(item.turnId)
      ? [{ type: 'permission.decided', payload: { turnId: item.turnId, requestId: item.requestId, optionId: null, by: 'turn-cancelled' } }]
      : [],
  );
  return [...withdrawn, ...unfinished.map((turn): EventDraft => ({ type: 'turn.ended', payload: { turnId: turn.turnId, outcome: 'interrupted' } }))];
}
