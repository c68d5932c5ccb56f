/**
 * How a turn that did not end on its own is recorded: what the person reads about it, and its
 * outcome. Stopping before the agent's session was open, Baton closing meanwhile (not the person's
 * Stop: the turn can be retried), an agent ended after ignoring Stop, and the stop reasons an agent
 * gives for a reply cut short.
 */
import type { EventDraft } from '../../../app/events/index.js';

/** The turn ended before `agent` had opened its session: by the person's Stop, or by Baton closing. */
export function stoppedBeforeSession(turnId: string, agent: string, closing: boolean): EventDraft[] {
  return [
    {
      type: 'notice',
      payload: {
        turnId,
        severity: 'info',
        text: closing
          ? `Baton closed while ${agent} was still opening its session (it had not answered session/new), so Baton ended it; nothing was sent to it.`
          : `Stopped before ${agent} had opened its session; nothing was sent to it.`,
      },
    },
    { type: 'turn.ended', payload: { turnId, outcome: closing ? 'interrupted' : 'cancelled' } },
  ];
}

/** `agent` ignored Stop for `graceMs`, so Baton ended it. */
export function endedAfterStop(turnId: string, agent: string, graceMs: number): EventDraft[] {
  return [
    {
      type: 'notice',
      payload: {
        turnId,
        severity: 'warning',
        text: `${agent} did not stop within ${graceMs / 1000} s of being asked, so Baton ended it. Your next message starts it again.`,
      },
    },
    { type: 'turn.ended', payload: { turnId, outcome: 'cancelled' } },
  ];
}

/** What a reply cut short by the agent's stop reason says. */
export function stopNotice(stopReason: 'max_tokens' | 'max_turn_requests' | 'refusal'): string {
  switch (stopReason) {
    case 'max_tokens':
      return 'The reply stopped because the model reached its token limit.';
    case 'max_turn_requests':
      return 'The reply stopped because the agent reached its limit of model requests for one turn.';
    case 'refusal':
      return 'The agent refused to continue.';
  }
}
