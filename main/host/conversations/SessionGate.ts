/**
 * The rule for requests an agent makes in a session's name (files, new terminals, elicitations):
 * one agent process may carry several conversations' sessions and can name any of them, so a
 * session that is not in a turn takes none of them, except those that belong to one of its own
 * tool calls still running (an MCP server asking for input mid-call). A refusal is typed (the
 * agent gets a JSON-RPC error that says why), logged, and said in the conversation it named.
 * Tool calls are followed from the session's own updates while its turn runs.
 */
import type { EventDraft } from '../../../app/events/index.js';

/** A request refused because no turn of the session's conversation runs. */
export class NotInTurnError extends Error {
  /** Mapped to "invalid params" for the agent (see `acp/clientMethods.ts`). */
  readonly kind = 'not-in-turn';
}

/** What the gate needs of the session's owner. */
export type GateOwner = {
  activeTurnId(): string | undefined;
  commit(drafts: EventDraft[]): void;
  log(message: string): void;
};

/** One session's gate. */
export class SessionGate {
  /** Tool calls of the session whose last reported status is pending or in progress. */
  private readonly running = new Set<string>();

  constructor(
    private readonly owner: GateOwner,
    private readonly agentName: string,
  ) {}

  /** Follows the tool calls in drafts the session recorded. */
  observe(drafts: readonly EventDraft[]): void {
    for (const draft of drafts) {
      if (draft.type === 'tool.call' || (draft.type === 'tool.updated' && draft.payload.status !== undefined)) {
        const status = draft.payload.status;
        if (status === 'pending' || status === 'in_progress' || status === 'awaiting_permission') {
          this.running.add(draft.payload.toolCallId);
        } else {
          this.running.delete(draft.payload.toolCallId);
        }
      }
    }
  }

  /**
   * Throws {@link NotInTurnError} (and says so in the conversation) unless a turn runs or `toolCallId` is one of its running tool calls.
   */
  require(what: string, toolCallId?: string | null): void {
    if (this.owner.activeTurnId() !== undefined || (toolCallId && this.running.has(toolCallId))) {
      return;
    }
    const text = `Baton refused ${this.agentName}'s request to ${what} in this conversation's name: no turn of it was running, so another conversation sharing ${this.agentName}'s process may have made it.`;
    this.owner.log(text);
    this.owner.commit([{ type: 'notice', payload: { severity: 'warning', text } }]);
    throw new NotInTurnError(`Refused: no turn of this session's conversation is running, so Baton does not ${what} for it.`);
  }
}
