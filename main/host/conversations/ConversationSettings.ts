/**
 * What a conversation is set up with, apart from its turns: creating it (agent, folder, its own
 * instructions, toolbox and injectors) and changing its toolbox, injectors, instructions and
 * session options (the servers a turn gets are resolved by `TurnPlanner`). Every change is an
 * event through the Committer and applies from the next turn.
 */
import { InvalidRequestError } from '../../../app/errors.js';
import type { EventDraft } from '../../../app/events/index.js';
import { LOCAL_MACHINE_ID, newId } from '../../../app/ids.js';
import type { InstructionText } from '../../../app/instructions/bundle.js';
import { injectorChoiceSchema, type InjectorChoice } from '../../../app/instructions/injectors.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import type { Env } from '../adapters/AgentAdapter.js';
import type { AgentAccess } from '../agents/AgentAccess.js';
import type { AgentCatalog } from '../agents/AgentCatalog.js';
import type { InstructionSettings } from '../instructions/InstructionSettings.js';
import type { EventStore } from '../store/EventStore.js';
import type { ToolboxCatalog } from '../toolbox/ToolboxCatalog.js';
import type { Committer } from './Committer.js';
import type { AgentProcesses } from '../pool/AgentProcesses.js';
import type { ImportReview } from './ImportReview.js';
import type { LiveSession } from './LiveSession.js';

/** What the settings of conversations are kept with. */
export type ConversationSettingsDeps = {
  store: EventStore;
  catalog: AgentCatalog;
  committer: Committer;
  instructions: InstructionSettings;
  /** The MCP servers conversations may use; without it, conversations get none. */
  toolbox?: ToolboxCatalog;
  /** The conversation's live session, if one runs: an option chosen is applied to it at once. */
  liveSession: (conversationId: string) => LiveSession | undefined;
  /** The conversation's toolbox changed: what was granted for the old one ends now, not at its next turn. */
  onToolboxSet?: (conversationId: string) => void;
  /** The machine new conversations' folders are on (its id; default: this computer). */
  machineId?: string;
};

/** What the turns, their planner and their live sessions are built with (from the composition root; each takes what it uses). */
export type ConversationParts = {
  store: EventStore;
  catalog: AgentCatalog;
  /** Finds agents' executables (the one place that says an agent is not installed). */
  access: AgentAccess;
  agentEnv: Env;
  committer: Committer;
  instructions: InstructionSettings;
  importReview: ImportReview;
  pool: AgentProcesses;
  log: (message: string) => void;
};

/** Creates conversations and changes what they are set up with. */
export class ConversationSettings {
  constructor(private readonly deps: ConversationSettingsDeps) {}

  /** Creates a conversation bound to an agent and a working folder, with its own instructions if given. */
  create(
    agentId: string,
    cwd: string,
    title = '',
    instructions?: InstructionText,
    serverIds?: readonly string[],
    injectors?: InjectorChoice,
    /** The id an early session reserved for it (see `earlySession.ts`); a new one otherwise. */
    conversationId: string = newId(),
    /** The machine `cwd` is on; its folder was checked there (default: the host's). */
    machineId?: string,
    /** The folder's trusted text, read there (`TurnPlanner.sources`): it counts toward the instructions' size. */
    project?: string | null,
  ): ConversationSummary {
    return this.deps.committer.commit(
      conversationId,
      this.creation(agentId, cwd, title, instructions, serverIds, injectors, machineId, project),
      0,
    ).summary;
  }

  /**
   * The events that create a conversation (checked: its instructions, its toolbox), not yet
   * committed. Its folder is checked first by the caller, on its machine (`checkWorkingFolderOn`).
   */
  creation(
    agentId: string,
    cwd: string,
    title = '',
    instructions?: InstructionText,
    serverIds?: readonly string[],
    injectors?: InjectorChoice,
    /** The machine `cwd` is on (default: the host's). */
    machineId?: string,
    /** The folder's trusted text, read there: it counts toward the instructions' size. */
    project?: string | null,
  ): EventDraft[] {
    const adapter = this.deps.catalog.get(agentId);
    const machine = machineId ?? this.deps.machineId ?? LOCAL_MACHINE_ID;
    const drafts: EventDraft[] = [
      {
        type: 'conversation.created',
        payload: { title, agentId, agentName: adapter.displayName, cwd, machine },
      },
    ];
    if (instructions && instructions.text.trim() !== '') {
      this.deps.instructions.compose({ conversation: instructions, agentId, project: project ?? null });
      drafts.push({ type: 'instructions.set', payload: instructions });
    }
    // Without a choice, a new conversation gets the default toolbox (if the person made one).
    const servers = serverIds ?? this.deps.toolbox?.defaultServerIds() ?? [];
    if (servers.length > 0) {
      drafts.push({ type: 'toolbox.set', payload: this.requireToolbox().choose(servers) });
    }
    if (injectors && (injectors.names.length > 0 || injectors.off)) {
      drafts.push({
        type: 'injectors.set',
        payload: injectorChoiceSchema.parse({ names: [...new Set(injectors.names)], off: injectors.off }),
      });
    }
    return drafts;
  }

  /** Chooses the MCP servers a conversation may use from its next turn (recorded with their names and a digest). */
  setToolbox(conversationId: string, serverIds: readonly string[]): void {
    this.deps.store.getSummary(conversationId);
    this.deps.committer.commit(conversationId, [{ type: 'toolbox.set', payload: this.requireToolbox().choose(serverIds) }]);
    this.deps.onToolboxSet?.(conversationId);
  }

  private requireToolbox(): ToolboxCatalog {
    if (!this.deps.toolbox) {
      throw new InvalidRequestError('This Baton has no toolbox catalog.');
    }
    return this.deps.toolbox;
  }

  /** Selects the conversation's injectors by name, or turns them all off; applies from its next turn. */
  setInjectors(conversationId: string, choice: InjectorChoice): void {
    const summary = this.deps.store.getSummary(conversationId);
    if (summary.lifecycle === 'deleted') {
      throw new InvalidRequestError('This conversation is in the trash; restore it to change its injectors.');
    }
    this.deps.committer.commit(conversationId, [
      { type: 'injectors.set', payload: injectorChoiceSchema.parse({ names: [...new Set(choice.names)], off: choice.off }) },
    ]);
  }

  /** Sets a conversation's own instructions (empty text clears them); they apply from its next turn. */
  setInstructions(
    conversationId: string,
    instructions: InstructionText,
    /** The folder's trusted text, read there (`TurnPlanner.sources`): it counts toward the instructions' size. */
    project?: string | null,
  ): void {
    const summary = this.deps.store.getSummary(conversationId);
    // Refuses a bundle past the size limit before anything is recorded.
    this.deps.instructions.compose({ conversation: instructions, agentId: summary.agentId, project: project ?? null });
    this.deps.committer.commit(conversationId, [{ type: 'instructions.set', payload: instructions }]);
  }

  /**
   * Sets a session option (model, mode…) and remembers it for the conversation. Without a live
   * agent, or for another agent than the live one (the one picked for the next message), it is
   * only remembered, and applied when that agent's session is bound.
   */
  async chooseOption(conversationId: string, optionId: string, value: string, agentId?: string): Promise<void> {
    this.deps.store.getSummary(conversationId);
    const live = this.deps.liveSession(conversationId);
    const drafts: EventDraft[] = [{ type: 'session.option.chosen', payload: { optionId, value } }];
    if (live && (agentId === undefined || agentId === live.binding.agentId)) {
      drafts.push(await live.choose(optionId, value));
    }
    this.deps.committer.commit(conversationId, drafts);
  }
}
