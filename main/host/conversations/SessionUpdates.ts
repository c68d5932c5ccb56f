/**
 * The updates an agent sends in one live session, applied: held until the bind's drafts are
 * committed, ignored while a loaded session replays (its history is in the transcript already),
 * changes of mode or options and subagent announcements passed to their owners, commands and the
 * session's title recorded, and everything else mapped into the running turn (its tool calls
 * remembered, so that a permission request names a known one, and shown to the gate).
 */
import type { SessionUpdate } from '../acp/AgentConnection.js';
import { mapUpdate } from '../acp/mapUpdate.js';
import type { LiveSessionOwner } from './SessionOwner.js';
import type { SessionGate } from './SessionGate.js';
import type { SessionModes } from './SessionModes.js';
import type { SessionSubagents } from './SessionSubagents.js';
import type { SessionTerminals } from './SessionTerminals.js';

/** What the updates of a session reach. */
export type SessionUpdatesOf = {
  agentName: string;
  owner: LiveSessionOwner;
  modes: SessionModes;
  subagents: SessionSubagents;
  terminals: SessionTerminals;
  gate: SessionGate;
};

/** One session's updates. */
export class SessionUpdates {
  /** The tool calls the agent reported in this session. */
  readonly toolCalls = new Set<string>();
  /** While the agent replays a loaded session, its updates are already in the transcript. */
  replaying = false;
  /** Updates that arrived before the bind's drafts were committed. */
  private early: SessionUpdate[] | undefined = [];

  constructor(private readonly of: SessionUpdatesOf) {}

  /** Starts applying updates, those held first: call once the drafts from the bind are committed. */
  start(): void {
    const early = this.early ?? [];
    this.early = undefined;
    for (const update of early) {
      this.apply(update);
    }
  }

  /** A subagent's update (a loaded session's replay has its subagents' work in the transcript already). */
  applySubagent(subagentId: string, update: SessionUpdate): void {
    if (!this.replaying) {
      this.of.subagents.onUpdate(subagentId, update);
    }
  }

  /** Applies an update of the session. */
  apply(update: SessionUpdate): void {
    if (this.replaying) {
      return;
    }
    if (this.early) {
      this.early.push(update);
      return;
    }
    const { owner, modes, subagents, terminals, gate, agentName } = this.of;
    // Changes of mode or options belong to the session, whether or not a turn runs.
    if (modes.onUpdate(update) || subagents.announced(update)) {
      return;
    }
    if (update.sessionUpdate === 'available_commands_update') {
      const commands = update.availableCommands.map(({ name, description, input }) => ({
        name,
        description,
        ...(input && 'hint' in input ? { hint: input.hint } : {}),
      }));
      owner.commit([{ type: 'session.commands', payload: { commands } }]);
      return;
    }
    if (update.sessionUpdate === 'session_info_update') {
      if (update.title !== undefined) {
        owner.commit([{ type: 'session.info', payload: { title: update.title } }]);
      }
      return;
    }
    const turnId = owner.activeTurnId();
    if (!turnId) {
      return;
    }
    const mapped = mapUpdate(update, turnId, { isKnownToolCall: (id) => this.toolCalls.has(id) });
    const drafts = terminals.boundReported(mapped.drafts);
    gate.observe(drafts);
    for (const draft of drafts) {
      if (draft.type === 'tool.call') {
        this.toolCalls.add(draft.payload.toolCallId);
      }
    }
    if (mapped.unknownKind) {
      owner.log(`ignored an unknown session/update kind "${mapped.unknownKind}" from ${agentName}`);
    }
    if (drafts.length > 0) {
      owner.commit(drafts);
    }
  }
}
