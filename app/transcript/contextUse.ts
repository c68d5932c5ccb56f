/**
 * What the context meter says: the agent's own report of the context in use (ACP's
 * `usage_update`), never a count Baton adds up. A figure beyond the model's window is a running
 * total some agents send (the "521%" other clients showed), not the context in use, and is said
 * to be one; an agent that finished a turn without reporting is said not to report it.
 */
import type { EventPayload } from '../events/index.js';
import type { TranscriptState } from './state.js';

export type ContextUse =
  /** The agent's last report, within its window. */
  | { kind: 'reported'; used: number; size: number }
  /** A report beyond the window: a running total, not the context in use. */
  | { kind: 'beyond'; used: number; size: number }
  /** The agent finished a turn without a report. */
  | { kind: 'unreported'; agentName: string }
  /** Nothing to say yet (no turn of this agent has finished). */
  | { kind: 'none' };

/** What one report says: within the window, beyond it, or nothing (no window given). */
export function judgeUsage(usage: Pick<EventPayload<'usage'>, 'used' | 'size'> | null | undefined): ContextUse | undefined {
  if (!usage || !(usage.size > 0) || !(usage.used >= 0)) {
    return undefined;
  }
  return usage.used <= usage.size
    ? { kind: 'reported', used: usage.used, size: usage.size }
    : { kind: 'beyond', used: usage.used, size: usage.size };
}

/** The context use of a conversation's current agent. */
export function contextUse(state: Pick<TranscriptState, 'usage' | 'turns' | 'agentId'>): ContextUse {
  const judged = judgeUsage(state.usage);
  if (judged) {
    return judged;
  }
  const last = Object.values(state.turns)
    .filter((turn) => turn.agentId === state.agentId)
    .at(-1);
  // A turn that reported is not "unreported": its agent was switched away from and back (the old figure is never shown).
  return last?.status === 'completed' && !last.usage ? { kind: 'unreported', agentName: last.agentName } : { kind: 'none' };
}
