/** The shape of the renderer's one store, assembled from slices. */
import type { StateCreator } from 'zustand';
import type { AlwaysDecision } from '../../app/agents/alwaysDecisions.js';
import type { ElicitationValue } from '../../app/agents/elicitation.js';
import type { Envelope } from '../../app/events/index.js';
import type { InstructionText } from '../../app/instructions/bundle.js';
import type { AgentInstructionSettings } from '../../app/instructions/delivery.js';
import type { InjectorChoice } from '../../app/instructions/injectors.js';
import type { Result } from '../../app/ipc/index.js';
import type {
  AgentProcess,
  ImportCandidate,
  ImportReview,
  InstructionPreview,
  ProcessSharing,
  SearchHit,
} from '../../app/ipc/index.js';
import type { CatalogServer, ServerInput, Toolbox } from '../../app/toolbox/catalog.js';
import type { ConversationSummary } from '../../app/transcript/summary.js';
import type { Api } from '../api.js';
import type { ConnectionStatus } from '../transport/Transport.js';
import type { BufferedTranscript } from './transcriptBuffer.js';
import type { Attachment } from '../../app/prompt/attachments.js';
import type { AgentsSlice } from './slices/agentsSlice.js';
import type { AgentSessionsSlice } from './slices/agentSessionsSlice.js';
import type { LoginsSlice } from './slices/loginsSlice.js';
import type { AttemptsSlice } from './slices/attemptsSlice.js';

/** What the main pane shows. */
/** An attachment in the message box: what is sent, and how it is shown there. */
export type ComposerAttachment = { id: string; label: string; attachment: Attachment; previewUrl?: string };

export type Selection = { kind: 'draft' } | { kind: 'conversation'; conversationId: string };

/** Which part of the history the list shows. */
export type HistoryView = Exclude<ConversationSummary['lifecycle'], 'attempt'>;

/** A shown error. */
export type ShownError = { code: string; message: string; details?: Record<string, unknown> };

/**
 * A way out of a refusal of the person's instructions: send once without them, stop sending them to
 * the agent, or let the agent take them on its command line.
 */
export type RefusalChoice = 'without' | 'off' | 'allow';

/** What one message leaves out, this once: the person's standing instructions, the conversation's toolbox. */
export type SendOptions = { withoutInstructions?: boolean; withoutTools?: boolean };

/** The agent's instruction setting a choice changes before the message goes again ('without' changes none). */
export function refusalSettings(choice: RefusalChoice): Partial<AgentInstructionSettings> | undefined {
  return choice === 'off' ? { off: true } : choice === 'allow' ? { commandLineAccepted: true } : undefined;
}

/** Connection, agents, errors. */
export type HostSlice = {
  connection: ConnectionStatus;
  homeDir: string;
  /** The data folder and Baton's version, as the host said at start (shown in Settings). */
  dataDir: string;
  version: string;
  error: ShownError | null;
  /** A short confirmation (logged in…), shown until dismissed or replaced. */
  info: string | null;
  start(): Promise<void>;
  reload(): Promise<void>;
  showError(error: unknown): void;
  dismissError(): void;
  dismissInfo(): void;
};

/** The open conversation: its transcript (read in pages, pushed events applied per animation frame) and the answers to what it asks. */
export type TranscriptsSlice = {
  transcripts: Record<string, BufferedTranscript>;
  /** How many turns of each conversation to read when it opens ("Show earlier" grows it). */
  turnsShown: Record<string, number>;
  selection: Selection;
  /**
   * The open conversation's summary, kept whatever list is shown: archiving or deleting it takes
   * it out of the list, not off the screen, so the header, transcript and composer stay one thing.
   */
  openSummary: ConversationSummary | null;
  /** A message to scroll to once the transcript shows (a search hit). */
  focus: { conversationId: string; seq: number } | null;
  /** On narrow windows, whether the conversation list is shown over the conversation. */
  sidebarOpen: boolean;
  setSidebarOpen(open: boolean): void;
  newConversation(): void;
  select(conversationId: string, focusSeq?: number): Promise<void>;
  showEarlier(): Promise<void>;
  /** Pushed transcript events, one commit's (applied with the others of their animation frame). */
  receiveEnvelopes(envelopes: readonly Envelope[]): void;
  /** A pushed summary (the newest of each conversation applied at the next animation frame). */
  receiveSummary(summary: ConversationSummary): void;
  /** A pushed erasure (a summary still waiting for its frame is dropped). */
  receiveRemoval(conversationId: string): void;
  cancel(): Promise<void>;
  /** Answers a permission question of the open conversation, or of `conversationId` (an attempt's). */
  answerPermission(requestId: string, optionId: string, conversationId?: string): Promise<void>;
  /** Resolves true once the agent has the answer. */
  answerElicitation(
    requestId: string,
    action: 'accept' | 'decline' | 'cancel',
    content?: Record<string, ElicitationValue>,
    conversationId?: string,
  ): Promise<boolean>;
  /** What changed in the working folder during a turn of the open conversation (or of `conversationId`), from its checkpoints. */
  fetchTurnChanges(turnId: string, conversationId?: string): Promise<Result<'listTurnChanges'>>;
  /** Reads a conversation shown beside the open one (an attempt's) and keeps it current. */
  watchConversation(conversationId: string): Promise<void>;
};

/** What is being written: the message box per conversation (text, attachments), sending, the follow-up queue. */
export type ComposerSlice = {
  composer: Record<string, string>;
  /** An unsent draft set aside when a message was put back in its box (see putBack), per composer. */
  setAside: Record<string, string>;
  /** Puts `text` in a box, setting an unsent draft there aside. */
  putInBox(key: string, text: string): void;
  /** Swaps the set-aside draft and the box (the box's text is set aside in turn, unless empty). */
  swapSetAside(key: string): void;
  /** What is attached to the message being written, per composer (sent with it, kept until it is committed). */
  attachments: Record<string, ComposerAttachment[]>;
  sending: boolean;
  /** Grows each time focus should go to the message box (the box follows it). */
  messageBoxFocus: number;
  /** Asks for focus in the message box. */
  focusMessageBox(): void;
  setComposer(key: string, text: string): void;
  addAttachment(key: string, attachment: ComposerAttachment): void;
  removeAttachment(key: string, id: string): void;
  /** Sends the box's message (this once without the person's instructions, or without the conversation's tools). */
  send(options?: SendOptions): Promise<void>;
  /** "Send without these tools this time": the box's message goes to an agent that uses no tools, without the conversation's toolbox. */
  sendWithoutTools(): Promise<void>;
  /**
   * Hands the box's message to `deliver` (creating the conversation first for a new one) and takes
   * it out of the box once delivered; throws what `deliver` threw, the message still in the box.
   */
  submitBox(deliver: (conversationId: string, text: string, attached: readonly ComposerAttachment[]) => Promise<void>): Promise<void>;
  /**
   * Resolves a refusal of the person's instructions met by sending (a switch refused before anything was recorded): the box's message goes
   * again.
   */
  resolveSendRefusal(choice: RefusalChoice): Promise<void>;
  /** Puts one of the person's earlier messages in the message box to edit and send again. */
  editMessage(text: string): void;
  /** A follow-up written while a turn runs, per conversation, with what was attached to it: sent when the turn ends. */
  queued: Record<string, { text: string; attachments: ComposerAttachment[] }>;
  /** Queues the message box's text for when the running turn ends. */
  queue(): void;
  /** Takes the queued follow-up back into the message box. */
  unqueue(conversationId: string): void;
  /** Sends the queued follow-up (the turn has ended). */
  sendQueued(conversationId: string): Promise<void>;
  /** Sends the queued follow-up into the running turn now (agents with steering); it stays queued when the turn has just ended. */
  steerQueued(conversationId: string): Promise<void>;
  /** Folders whose path starts with what was typed (completion of a folder field). */
  completeFolder(typed: string): Promise<string[]>;
  /** Files of a working folder matching what follows @ in the message box. */
  findFiles(cwd: string, query: string): Promise<string[]>;
};

/** What the next message goes with: the new conversation being set up, the agent picked for a conversation's next turn, session options. */
export type DraftsSlice = {
  /** The new conversation being set up; `options` holds the session options chosen before its first message. */
  draft: {
    agentId: string;
    cwd: string;
    instructions?: InstructionText;
    serverIds?: string[];
    injectors?: InjectorChoice;
    options?: Record<string, string>;
  };
  /** The agent the person picked for a conversation's next turn, when it is not the one that has it. */
  nextAgent: Record<string, string>;
  setDraftAgent(agentId: string): void;
  /** Chooses a session option (model, mode…) for the new conversation, applied when its session starts; remembered for the agent. */
  setDraftOption(optionId: string, value: string): void;
  /** Picks the agent that handles the open conversation's next turn (the switch happens when the message is sent). */
  setNextAgent(conversationId: string, agentId: string): void;
  setDraftCwd(cwd: string): void;
  /**
   * Why the new conversation's folder cannot be worked in (checked with the host as it is typed); null: it can, or it is not checked yet.
   */
  draftFolderProblem: string | null;
  /** Sets one of the open conversation's session options (model, mode…); remembered for its agent. */
  setSessionOption(optionId: string, value: string): Promise<void>;
  /** Options chosen for the agent picked for a conversation's next turn (applied when its session starts). */
  nextOptions: Record<string, Record<string, string>>;
  /** Chooses an option of the agent picked for the open conversation's next turn. */
  setNextAgentOption(optionId: string, value: string): Promise<void>;
  /**
   * The agent session opened for the new conversation while its first message is written: for
   * which settings (`key`) and under which reserved id (null: the host could not open one for them).
   */
  earlySession: { key: string; conversationId: string | null } | null;
  /**
   * Opens the new conversation's session ahead of Send when its agent and folder are set and its
   * message box has text, closing one opened for other settings; closes it when the box is emptied.
   */
  prepareEarlySession(): Promise<void>;
  /** The reserved id of the early session opened for exactly the draft as it is now (the others are closed). */
  takeEarlySession(): Promise<string | undefined>;
};

/** The conversation list and what can be done with its entries. */
export type HistorySlice = {
  view: HistoryView;
  conversations: ConversationSummary[];
  nextCursor: { updatedAt: string; conversationId: string } | null;
  loadingMore: boolean;
  /** The last deleted conversation, for a while, so it can be brought back. */
  undo: { conversationId: string; title: string } | null;
  setView(view: HistoryView): Promise<void>;
  loadMore(): Promise<void>;
  upsertSummary(summary: ConversationSummary): void;
  removeSummary(conversationId: string): void;
  rename(conversationId: string, title: string): Promise<void>;
  setArchived(conversationId: string, archived: boolean): Promise<void>;
  remove(conversationId: string): Promise<void>;
  restore(conversationId: string): Promise<void>;
  purge(conversationId: string): Promise<void>;
  dismissUndo(): void;
  exportConversation(conversationId: string, format: 'markdown' | 'jsonl'): Promise<void>;
  importFile(file: File): Promise<void>;
};

/** Full-text search over the history. */
export type SearchSlice = {
  search: { text: string; agentId: string; from: string; to: string; results: SearchHit[]; searching: boolean };
  setSearch(changes: Partial<Pick<SearchSlice['search'], 'text' | 'agentId' | 'from' | 'to'>>): void;
  clearSearch(): void;
};

/** The Instructions dialog. */
export type InstructionsSlice = {
  /** The dialog while open: the texts as edited, where they would land with the pane's agent, a problem to show. */
  instructionsDialog: {
    person: InstructionText;
    conversation: InstructionText;
    /** The pane's agent's profile as edited (null: the saved one, not yet shown). */
    profile: InstructionText | null;
    /** The conversation's injectors as selected in the dialog. */
    injectors: InjectorChoice;
    preview: InstructionPreview | null;
    problem: string | null;
    saving: boolean;
    /** Whether the folder was trusted before the person changed it in this dialog (undone on Cancel). */
    trustBefore?: boolean;
    /** Save is asking each agent whether it can take the instructions as written. */
    checking?: boolean;
    /** Found on Save: the agents that would refuse the instructions as chosen, each with its ways out (Save again saves anyway). */
    cannotTake?: CannotTake[];
  } | null;
  openInstructions(): Promise<void>;
  closeInstructions(): void;
  editInstructions(part: 'person' | 'conversation' | 'profile', changes: Partial<InstructionText>): void;
  /** Selects or deselects one injector, or turns them all off, in the dialog. */
  editInjectors(changes: { select?: { name: string; selected: boolean }; off?: boolean }): void;
  /** Trusts the pane's working folder's instructions as shown, or stops trusting them. */
  setFolderTrust(trusted: boolean): Promise<void>;
  /** Saves; first says which agents would refuse them (unless that was said already, or `anyway`). */
  saveInstructions(anyway?: boolean): Promise<void>;
  /** Changes the pane's agent's instruction settings, or another agent's (from the Save list). */
  setAgentInstructionSettings(settings: Partial<AgentInstructionSettings>, agentId?: string): Promise<void>;
};

/** An agent that would refuse the instructions as chosen: why, and whether it could take them on its command line. */
export type CannotTake = { agentId: string; agentName: string; refusal: string; commandLine: boolean };

/** The Toolbox dialog. */
export type ToolboxSlice = {
  toolboxDialog: {
    /** What the checkboxes change: the pane's conversation (or new conversation), or the default toolbox (opened from Settings). */
    scope: 'pane' | 'default';
    servers: CatalogServer[];
    toolboxes: Toolbox[];
    /** The servers the pane's conversation (or draft) may use. */
    selected: string[];
    adding: boolean;
    /** The server whose Edit form is open. */
    editing?: string | null;
    scan: { candidates: ImportCandidate[]; problems: Array<{ file: string; message: string }> } | null;
    /** Tools this agent sees, per server (null while asked). */
    tools: Array<{ name: string; transport: string; tools: string[]; error: string | null; calledByAgent: string[] }> | null;
    /** Said for an agent that loads MCP tools on demand. */
    toolsNote?: string | null;
    problem: string | null;
    busy: boolean;
    /** A server about to be removed, with the conversations that use it (null while asked). */
    removing?: { serverId: string; usedBy: Array<{ conversationId: string; title: string }> | null } | null;
  } | null;
  /** Opens dialog "Toolbox" for the pane's conversation (or new conversation), or from Settings for the default toolbox. */
  openToolbox(scope?: 'pane' | 'default'): Promise<void>;
  /** Asks which conversations use a server, before removing it. */
  askRemoveServer(serverId: string): Promise<void>;
  cancelRemoveServer(): void;
  /** Removes a server from the toolbox (the open conversation lets it go first). */
  removeServer(serverId: string): Promise<void>;
  closeToolbox(): void;
  toggleServer(serverId: string, on: boolean): Promise<void>;
  applyToolbox(toolboxId: string): Promise<void>;
  setAdding(adding: boolean): void;
  /** Resolves true once saved. */
  addServer(input: ServerInput): Promise<boolean>;
  /** Opens (or, with null, closes) a server's Edit form. */
  setEditing(serverId: string | null): void;
  /** Saves an edited server; resolves true once saved. */
  updateServer(serverId: string, input: ServerInput): Promise<boolean>;
  scanImports(file?: string): Promise<void>;
  importSelected(candidateIds: string[], inputs: Record<string, string>): Promise<void>;
  setBridge(serverId: string, bridge: boolean): Promise<void>;
  refreshTools(): Promise<void>;
  /** Saves the checked servers as a named set; resolves true once saved. */
  saveToolboxSet(name: string, isDefault: boolean): Promise<boolean>;
};

/** An imported conversation waiting for the person to confirm its folder and what it brings. */
export type ImportReviewSlice = {
  importReview: { conversationId: string; review: ImportReview; open: boolean; busy: boolean; problem: string | null } | null;
  /** Asks the host whether the conversation waits for confirmation; `open` shows the dialog when it does. */
  checkImport(conversationId: string, open?: boolean): Promise<void>;
  openImportReview(): void;
  closeImportReview(): void;
  /** Resolves true once confirmed. */
  confirmImport(): Promise<boolean>;
};

/** Going back: rewinding to one of the person's messages (and undoing it), Retry, and branching from a message. */
export type RewindSlice = {
  /** Dialog "Rewind" while open: what the rewind would do (null while asked), the person's choices. */
  rewindDialog: {
    conversationId: string;
    turnId: string;
    preview: Result<'previewRewind'> | null;
    /** Rewind the conversation only: the files stay as they are. */
    keepFiles: boolean;
    /** Files the person changed since the last checkpoint that they ticked to be overwritten. */
    overwrite: string[];
    busy: boolean;
    problem: string | null;
  } | null;
  openRewind(turnId: string): Promise<void>;
  closeRewind(): void;
  setRewindChoice(changes: { keepFiles?: boolean; overwrite?: { path: string; on: boolean } }): void;
  confirmRewind(): Promise<void>;
  undoRewind(rewindId: string): Promise<void>;
  /**
   * Replaces the last reply: its turn is set aside (files kept) and the message is sent again (this once without the person's instructions,
   * if asked).
   */
  retry(turnId: string, options?: { withoutInstructions?: boolean }): Promise<void>;
  /** "Edit and resend": the last message with no file to put back goes straight back to the box; otherwise dialog "Rewind". */
  editAndResend(turnId: string): Promise<void>;
  /**
   * Resolves a turn the agent refused for the person's instructions, from the refusal's buttons:
   * send this message without them, stop sending them to that agent, or allow its command-line channel; then the message goes again.
   */
  resolveRefusal(turnId: string, choice: RefusalChoice): Promise<void>;
  /** Dialog "Branch from here" while open. */
  /** `ownCopy`: the branch works in a copy of the folder of its own (a git worktree, or a copy in Baton's data folder). */
  branchDialog: {
    conversationId: string;
    turnId: string;
    agentId: string;
    restoreFiles: boolean;
    ownCopy: boolean;
    busy: boolean;
    problem: string | null;
  } | null;
  openBranch(turnId: string): void;
  closeBranch(): void;
  setBranchChoice(changes: { agentId?: string; restoreFiles?: boolean; ownCopy?: boolean }): void;
  confirmBranch(): Promise<void>;
};

/** A part of the settings page. */
export type SettingsSection = 'agents' | 'toolboxes' | 'instructions' | 'permissions' | 'appearance' | 'data' | 'export';

/** The settings page. */
export type SettingsSlice = {
  /** While the page shows: its section, the remembered "always" answers (null while asked), what revoking one left. */
  settings: {
    section: SettingsSection;
    decisions: AlwaysDecision[] | null;
    note: string | null;
    /** The toolbox catalog (null while asked). */
    servers: CatalogServer[] | null;
    toolboxes: Toolbox[];
    /** The person's own instructions (null while asked). */
    person: InstructionText | null;
  } | null;
  openSettings(section?: SettingsSection): Promise<void>;
  closeSettings(): void;
  showSettingsSection(section: SettingsSection): void;
  revokeDecision(id: string): Promise<void>;
  /** Saves every conversation not in the trash as one Markdown file. */
  exportAll(): Promise<void>;
  /** The agent processes running, as last asked (null before), and the agents' process settings. */
  processes: AgentProcess[] | null;
  processSettings: { perConversation: string[]; cannotSeparate: Record<string, string> };
  /** Asks the host which agent processes run now. */
  loadProcesses(): Promise<void>;
  /** Stops one agent process (its running turns stopped first); says so, then asks again which run. */
  stopProcess(launchDigest: string, agentName: string): Promise<void>;
  /** Which other conversations share each conversation's agent process, as last asked. */
  processSharing: Record<string, ProcessSharing>;
  /** Asks the host which conversations share this one's agent process. */
  loadProcessSharing(conversationId: string): Promise<void>;
  /** Sets an agent to one process per conversation (or back to one per working folder). */
  setProcessPerConversation(agentId: string, on: boolean): Promise<void>;
  /** What the data folder holds that grows with use (null before asked). */
  dataFolderUsage: Result<'getDataFolderUsage'> | null;
  loadDataFolderUsage(): Promise<void>;
  /** Baton's log as last read (null before asked). */
  logTail: Result<'readLog'> | null;
  loadLog(): Promise<void>;
  /** Turns checkpoints of working folders on or off, or sets the largest file they keep. */
  setCheckpointSettings(changes: { off?: boolean; maxFileMegabytes?: number }): Promise<void>;
};

/** The whole renderer state. */
export type BatonState = HostSlice &
  LoginsSlice &
  AgentSessionsSlice &
  AgentsSlice &
  AttemptsSlice &
  TranscriptsSlice &
  ComposerSlice &
  DraftsSlice &
  HistorySlice &
  SearchSlice &
  InstructionsSlice &
  ToolboxSlice &
  SettingsSlice &
  ImportReviewSlice &
  RewindSlice;

/** A slice creator with access to the API client. */
export type Slice<T> = (api: Api) => StateCreator<BatonState, [], [], T>;

/** Turns anything thrown into what the error banner shows. */
export function shownError(error: unknown): ShownError {
  if (error && typeof error === 'object' && 'code' in error && 'message' in error) {
    const details =
      'details' in error && error.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : undefined;
    return { code: String(error.code), message: String(error.message), ...(details ? { details } : {}) };
  }
  return { code: 'Internal', message: String(error) };
}

/** Key of the composer for a selection. */
export function composerKey(selection: Selection): string {
  return selection.kind === 'draft' ? 'draft' : selection.conversationId;
}
