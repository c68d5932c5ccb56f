/** How a switch of agents is told in the transcript and its exports: the badge and the words beside it. */
import type { EventPayload } from '../events/index.js';

/** The badge of a switch: "resumed", "replayed" or "handed off". */
export function fidelityBadge(fidelity: EventPayload<'handoff.prepared'>['fidelity']): string {
  return fidelity === 'handed-off' ? 'handed off' : fidelity;
}

/** The words beside the badge: what went in, what carried over. */
export function fidelityDetail(prepared: EventPayload<'handoff.prepared'>): string {
  const parts: string[] = [];
  if (prepared.fidelity === 'handed-off') {
    parts.push(
      `${prepared.turns.full} turn${prepared.turns.full === 1 ? '' : 's'} in full, ${prepared.turns.summarised} summarised, ${prepared.turns.omitted} left out`,
    );
  } else if (prepared.kind === 'delta') {
    parts.push(
      prepared.text === ''
        ? 'its own session, nothing new to catch up on'
        : `its own session, with the ${prepared.turns.full + prepared.turns.summarised} turn${prepared.turns.full + prepared.turns.summarised === 1 ? '' : 's'} since it last took part`,
    );
  }
  if (prepared.fellBack) {
    parts.push(prepared.fellBack);
  }
  if (prepared.carried.length > 0) {
    parts.push(`carried over: ${prepared.carried.join(', ')}`);
  }
  if (prepared.notCarried.length > 0) {
    parts.push(`not carried over: ${prepared.notCarried.join(', ')}`);
  }
  return parts.join('; ');
}
