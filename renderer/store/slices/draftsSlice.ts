/**
 * What the next message goes with: the new conversation being set up (agent, folder, options
 * chosen before its first message), the agent picked for a conversation's next turn, and the
 * open conversation's session options. Choices are remembered per agent, except a mode in which
 * the agent decides without asking, picked in a conversation: that one holds for it alone.
 */
import type { Params } from '../../../app/ipc/index.js';
import { agentChoices, choicesToApply, rememberChoice } from '../../persisted/agentChoices.js';
import type { Slice } from '../types.js';
import type { InstructionText } from '../../../app/instructions/bundle.js';
import type { InjectorChoice } from '../../../app/instructions/injectors.js';

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
    /** The machine it goes on (absent: this computer). */
    machineId?: string;
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

/** How long typing in Working folder pauses before the path is checked. */
const FOLDER_CHECK_MS = 150;
let folderCheck: ReturnType<typeof setTimeout> | undefined;

/** What the new conversation would be created with, and its key (equal keys: the same session). */
function earlyParams(draft: DraftsSlice['draft']): { key: string; params: Params<'openEarlySession'> } {
  const chosen = Object.fromEntries(
    choicesToApply(agentChoices(draft.agentId), draft.options).map(({ optionId, value }) => [optionId, value]),
  );
  const params: Params<'openEarlySession'> = {
    agentId: draft.agentId,
    cwd: draft.cwd.trim(),
    ...(draft.instructions ? { instructions: draft.instructions } : {}),
    ...(draft.serverIds ? { serverIds: draft.serverIds } : {}),
    ...(draft.injectors ? { injectors: draft.injectors } : {}),
    chosen,
  };
  return { key: JSON.stringify(params), params };
}

/** The drafts slice. */
export const draftsSlice: Slice<DraftsSlice> = (api) => (set, get) => {
  /** Closes the early session (if the host holds one for it), forgetting it. */
  const closeEarly = async (): Promise<void> => {
    const early = get().earlySession;
    set({ earlySession: null });
    if (early?.conversationId) {
      await api.call('closeEarlySession', { conversationId: early.conversationId }).catch(() => undefined);
    }
  };
  return {
    earlySession: null,
    async prepareEarlySession() {
      const { draft, draftFolderProblem, composer, selection, earlySession } = get();
      // On another machine the first message waits for the agent's start: no session is opened ahead there.
      const ready =
        draft.machineId === undefined &&
        selection.kind === 'draft' &&
        draft.agentId !== '' &&
        draft.cwd.trim() !== '' &&
        draftFolderProblem === null &&
        (composer.draft ?? '').trim() !== '';
      if (!ready) {
        await closeEarly();
        return;
      }
      const { key, params } = earlyParams(draft);
      if (earlySession?.key === key) {
        return;
      }
      await closeEarly();
      set({ earlySession: { key, conversationId: null } });
      // A refusal here (an agent not installed, a folder that cannot be worked in) is said when the message is sent, not now.
      const opened = await api.call('openEarlySession', params).catch(() => undefined);
      if (get().earlySession?.key !== key) {
        // The draft changed meanwhile: this one will not be used.
        if (opened) {
          await api.call('closeEarlySession', { conversationId: opened.conversationId }).catch(() => undefined);
        }
        return;
      }
      set({ earlySession: { key, conversationId: opened?.conversationId ?? null } });
    },
    async takeEarlySession() {
      const early = get().earlySession;
      if (early && early.key === earlyParams(get().draft).key && early.conversationId) {
        set({ earlySession: null });
        return early.conversationId;
      }
      await closeEarly();
      return undefined;
    },
    draft: { agentId: '', cwd: '' },
    draftFolderProblem: null,
    nextAgent: {},
    nextOptions: {},
    async setNextAgentOption(optionId, value) {
      const { selection, nextAgent } = get();
      const agentId = selection.kind === 'conversation' ? nextAgent[selection.conversationId] : undefined;
      if (selection.kind !== 'conversation' || !agentId) {
        return;
      }
      const { conversationId } = selection;
      const picked = agentChoices(agentId)
        ?.options.find((option) => option.id === optionId)
        ?.options.find((choice) => choice.value === value);
      // As in a conversation: a mode in which the agent decides without asking is never its default.
      if (picked?.selfApproving !== true) {
        rememberChoice(agentId, optionId, value);
      }
      set((state) => ({
        nextOptions: { ...state.nextOptions, [conversationId]: { ...state.nextOptions[conversationId], [optionId]: value } },
      }));
      // Remembered for the conversation by the host, and applied when that agent's session starts.
      await api.call('setSessionOption', { conversationId, optionId, value, agentId }).catch((error: unknown) => get().showError(error));
    },
    setDraftAgent(agentId) {
      set((state) => {
        const { options: _chosenForAnother, ...draft } = state.draft;
        return { draft: { ...draft, agentId } };
      });
    },
    setDraftOption(optionId, value) {
      const { agentId } = get().draft;
      rememberChoice(agentId, optionId, value);
      set((state) => ({ draft: { ...state.draft, options: { ...state.draft.options, [optionId]: value } } }));
    },
    setNextAgent(conversationId, agentId) {
      set((state) => {
        const current = state.openSummary?.conversationId === conversationId ? state.openSummary.agentId : undefined;
        const { [conversationId]: _previous, ...others } = state.nextAgent;
        return { nextAgent: agentId === current ? others : { ...others, [conversationId]: agentId } };
      });
    },
    setDraftCwd(cwd) {
      set((state) => ({ draft: { ...state.draft, cwd }, draftFolderProblem: null }));
      clearTimeout(folderCheck);
      if (cwd.trim() === '') {
        return;
      }
      // Checked as it is typed (the last path typed wins), not only after Send.
      folderCheck = setTimeout(() => {
        const { machineId } = get().draft;
        void api.call('checkFolder', { path: cwd.trim(), ...(machineId ? { machineId } : {}) }).then(
          ({ problem }) => get().draft.cwd === cwd && get().draft.machineId === machineId && set({ draftFolderProblem: problem }),
          () => undefined,
        );
      }, FOLDER_CHECK_MS);
    },
    async setSessionOption(optionId, value) {
      const { selection } = get();
      if (selection.kind === 'conversation') {
        const transcript = get().transcripts[selection.conversationId]?.state;
        const picked = transcript?.sessionOptions
          .find((option) => option.id === optionId)
          ?.options.find((choice) => choice.value === value);
        // A mode in which the agent decides without asking holds for this conversation only: it never
        // becomes the agent's default unless picked for a new conversation.
        if (transcript && picked?.selfApproving !== true) {
          rememberChoice(transcript.agentId, optionId, value);
        }
        await api
          .call('setSessionOption', { conversationId: selection.conversationId, optionId, value })
          .catch((error: unknown) => get().showError(error));
      }
    },
  };
};
