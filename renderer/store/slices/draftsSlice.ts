/**
 * What the next message goes with: the new conversation being set up (agent, folder, options
 * chosen before its first message), the agent picked for a conversation's next turn, and the
 * open conversation's session options. Choices are remembered per agent, except a mode in which
 * the agent decides without asking, picked in a conversation: that one holds for it alone.
 */
import type { Params } from '../../../app/ipc/index.js';
import { agentChoices, choicesToApply, rememberChoice } from '../../persisted/agentChoices.js';
import type { DraftsSlice, Slice } from '../types.js';

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
      const ready =
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
      set((state) => ({ draft: { ...state.draft, cwd }, draftFolderProblem: state.draft.cwd === cwd ? state.draftFolderProblem : null }));
      clearTimeout(folderCheck);
      if (cwd.trim() === '') {
        return;
      }
      // Checked as it is typed (the last path typed wins), not only after Send.
      folderCheck = setTimeout(() => {
        void api.call('checkFolder', { path: cwd.trim() }).then(
          ({ problem }) => get().draft.cwd === cwd && set({ draftFolderProblem: problem }),
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
