/**
 * A live session's subagents (ACP subagents): sessions of their own that the agent announces with
 * `subagent_update` on the session whose turn runs them. Their updates are routed here by the pool
 * and recorded inside that turn: `subagent.updated` for what a subagent is and is doing,
 * `subagent.event` for its text, thoughts, tool calls and plan.
 */
import { z } from 'zod';
import type { EventDraft } from '../../../app/events/index.js';
import type { SessionUpdate } from '../acp/AgentConnection.js';
import { mapUpdate } from '../acp/mapUpdate.js';
import type { PooledAgent } from '../pool/PooledAgent.js';
import type { LiveSessionOwner } from './SessionOwner.js';

/** The `subagent_update` of the ACP subagents RFD (unstable in the SDK's schema, so read here). */
const announcementSchema = z.object({
  sessionUpdate: z.literal('subagent_update'),
  sessionId: z.string().min(1),
  title: z.string().nullish(),
  description: z.string().nullish(),
  state: z.object({ state: z.string() }).nullish(),
});

/** What a subagent's work may be recorded as. */
const ACTIVITY = new Set<EventDraft['type']>(['message.chunk', 'thought.chunk', 'tool.call', 'tool.updated', 'plan']);
type Activity = Extract<EventDraft, { type: 'message.chunk' | 'thought.chunk' | 'tool.call' | 'tool.updated' | 'plan' }>;

/** One live session's subagents. */
export class SessionSubagents {
  /** Tool calls of the subagents, as `<subagent>\n<tool call>`. */
  private readonly toolCalls = new Set<string>();

  constructor(
    private readonly owner: LiveSessionOwner,
    private readonly agent: () => PooledAgent,
    private readonly sessionId: () => string | undefined,
  ) {}

  /**
   * Takes a `subagent_update` (on the session, or on one of its subagents for one of its own):
   * routes that subagent's session here and records what it is. False for any other update.
   */
  announced(update: SessionUpdate): boolean {
    // Every update passes here, streamed chunks included: only an announcement is parsed.
    if ((update as { sessionUpdate: string }).sessionUpdate !== 'subagent_update') {
      return false;
    }
    const parsed = announcementSchema.safeParse(update);
    if (!parsed.success) {
      return false;
    }
    const { sessionId: subagentId, title, description, state } = parsed.data;
    const parent = this.sessionId();
    if (parent) {
      this.agent().adopt(subagentId, parent);
    }
    const turnId = this.owner.activeTurnId();
    if (turnId) {
      this.owner.commit([
        {
          type: 'subagent.updated',
          payload: {
            turnId,
            subagentId,
            ...(title !== undefined ? { title } : {}),
            ...(description !== undefined ? { description } : {}),
            ...(state ? { state: state.state } : {}),
          },
        },
      ]);
    }
    return true;
  }

  /** An update of one of the session's subagents: recorded in the running turn. */
  onUpdate(subagentId: string, update: SessionUpdate): void {
    if (this.announced(update)) {
      return;
    }
    const turnId = this.owner.activeTurnId();
    if (!turnId) {
      return;
    }
    const { drafts } = mapUpdate(update, turnId, { isKnownToolCall: (toolCallId) => this.toolCalls.has(`${subagentId}\n${toolCallId}`) });
    const recorded: EventDraft[] = [];
    for (const draft of drafts) {
      if (!ACTIVITY.has(draft.type)) {
        continue;
      }
      if (draft.type === 'tool.call') {
        this.toolCalls.add(`${subagentId}\n${draft.payload.toolCallId}`);
      }
      recorded.push({ type: 'subagent.event', payload: { turnId, subagentId, event: draft as Activity } });
    }
    if (recorded.length > 0) {
      this.owner.commit(recorded);
    }
  }
}
