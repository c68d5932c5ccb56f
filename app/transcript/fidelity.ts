/** How a switch of agents is told in the transcript and its exports: the badge and the words beside it. */
import type { EventPayload } from '../events/index.js';

/** The badge of a switch: "resumed", "replayed" or "handed off". */
export function fidelityBadge(fidelity: EventPayload<'handoff.prepared'>['fidelity']): string {
  return fidelity === 'handed-off' ? 'handed off' : fidelity;
}

/** A handoff with no earlier turn in it, nothing carried or left behind, and no fallback to say. */
export function handedNothing(prepared: EventPayload<'handoff.prepared'>): boolean {
  const { full, summarised, omitted } = prepared.turns;
  return (
    prepared.fidelity === 'handed-off' &&
    full + summarised + omitted === 0 &&
    !prepared.fellBack &&
    prepared.carried.length === 0 &&
    prepared.notCarried.length === 0
  );
}

/** The words beside the badge: what went in, what carried over. */
export function fidelityDetail(prepared: EventPayload<'handoff.prepared'>): string {
  const parts: string[] = [];
  if (handedNothing(prepared)) {
    parts.push('nothing to hand over yet: no earlier turns');
  } else if (prepared.fidelity === 'handed-off') {
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
