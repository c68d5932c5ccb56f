/**
 * Going back: dialog "Rewind" (what a rewind to one of the person's messages sets aside and does
 * to the files, asked of the host before anything changes), "Undo rewind", Retry as a rewind of
 * the last turn that sends its message again, and dialog "Branch from here" (a new conversation
 * with the history before a message, the same or another agent).
 */
import { type RefusalChoice, refusalSettings, type Slice } from '../types.js';
import type { Result } from '../../../app/ipc/index.js';

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

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** "2 files could not be put back: a.txt (why), b.txt (why)." */
const notPutBack = (failed: ReadonlyArray<{ path: string; reason: string }>): string =>
  `${failed.length} file${failed.length === 1 ? '' : 's'} could not be put back: ${failed.map((file) => `${file.path} (${file.reason})`).join(', ')}.`;

/** The rewind and branch slice. */
export const rewindSlice: Slice<RewindSlice> = (api) => (set, get) => ({
  rewindDialog: null,
  async openRewind(turnId) {
    const { selection } = get();
    if (selection.kind !== 'conversation') {
      return;
    }
    const { conversationId } = selection;
    set({ rewindDialog: { conversationId, turnId, preview: null, keepFiles: false, overwrite: [], busy: true, problem: null } });
    try {
      const preview = await api.call('previewRewind', { conversationId, turnId });
      set((state) => ({
        rewindDialog:
          state.rewindDialog?.turnId === turnId
            ? { ...state.rewindDialog, preview, keepFiles: preview.unavailable !== null, busy: false }
            : state.rewindDialog,
      }));
    } catch (error) {
      set((state) => ({ rewindDialog: state.rewindDialog && { ...state.rewindDialog, busy: false, problem: messageOf(error) } }));
    }
  },
  async editAndResend(turnId) {
    const { selection } = get();
    if (selection.kind !== 'conversation') {
      return;
    }
    const { conversationId } = selection;
    try {
      // The last message, and no file to put back: nothing to decide, so no dialog; the message goes back in the box.
      const preview = await api.call('previewRewind', { conversationId, turnId });
      if (preview.setAside.length === 1 && preview.files.length === 0 && preview.cannot.length === 0) {
        const { text } = await api.call('rewindConversation', { conversationId, turnId, keepFiles: true, overwrite: [] });
        get().putInBox(conversationId, text);
        get().focusMessageBox();
        return;
      }
    } catch (error) {
      get().showError(error);
      return;
    }
    await get().openRewind(turnId);
  },
  closeRewind() {
    set({ rewindDialog: null });
  },
  setRewindChoice(changes) {
    set((state) => {
      const dialog = state.rewindDialog;
      if (!dialog) {
        return {};
      }
      const overwrite = changes.overwrite
        ? changes.overwrite.on
          ? [...dialog.overwrite, changes.overwrite.path]
          : dialog.overwrite.filter((path) => path !== changes.overwrite?.path)
        : dialog.overwrite;
      return { rewindDialog: { ...dialog, overwrite, ...(changes.keepFiles !== undefined ? { keepFiles: changes.keepFiles } : {}) } };
    });
  },
  async confirmRewind() {
    const dialog = get().rewindDialog;
    if (!dialog || dialog.busy) {
      return;
    }
    set({ rewindDialog: { ...dialog, busy: true, problem: null } });
    try {
      const { conversationId } = dialog;
      const { text, failed } = await api.call('rewindConversation', {
        conversationId,
        turnId: dialog.turnId,
        keepFiles: dialog.keepFiles,
        overwrite: dialog.overwrite,
      });
      // The message goes back in the box, to edit and send again; whatever was there stays after it.
      set({ rewindDialog: null });
      get().putInBox(conversationId, text);
      if (failed.length > 0) {
        set({ info: `Rewound, but ${notPutBack(failed)}` });
      }
      get().focusMessageBox();
    } catch (error) {
      set((state) => ({ rewindDialog: state.rewindDialog && { ...state.rewindDialog, busy: false, problem: messageOf(error) } }));
    }
  },
  async undoRewind(rewindId) {
    const { selection } = get();
    if (selection.kind !== 'conversation') {
      return;
    }
    const { conversationId } = selection;
    // The message the rewind put back in the box (its first set-aside message).
    const items = get().transcripts[conversationId]?.state.items ?? [];
    const marker = items.find((item) => item.kind === 'rewind' && item.rewindId === rewindId);
    const rewound =
      marker?.kind === 'rewind'
        ? items.find((item) => item.kind === 'user' && item.turnId === marker.toTurnId && !item.steered)
        : undefined;
    try {
      const { failed } = await api.call('undoRewind', { conversationId, rewindId });
      // That message is back in the transcript, so it goes out of the box (Enter would send it twice), but only if the person left it as it
      // was: nothing typed is lost.
      if (rewound?.kind === 'user' && (get().composer[conversationId] ?? '').trim() === rewound.text.trim()) {
        get().setComposer(conversationId, '');
        if (get().setAside[conversationId] !== undefined) {
          get().swapSetAside(conversationId);
        }
      }
      if (failed.length > 0) {
        set({ info: `Rewind undone, but ${notPutBack(failed)}` });
      }
    } catch (error) {
      get().showError(error);
    }
  },
  async resolveRefusal(turnId, choice) {
    const { selection, transcripts } = get();
    if (selection.kind !== 'conversation') {
      return;
    }
    const agentId = transcripts[selection.conversationId]?.state.turns[turnId]?.agentId;
    if (!agentId) {
      return;
    }
    try {
      const settings = refusalSettings(choice);
      if (settings) {
        await api.call('setAgentInstructionSettings', { agentId, settings });
      }
      await get().retry(turnId, { withoutInstructions: choice === 'without' });
    } catch (error) {
      get().showError(error);
    }
  },
  async retry(turnId, options = {}) {
    const { selection, transcripts } = get();
    if (selection.kind !== 'conversation') {
      return;
    }
    const { conversationId } = selection;
    const message = transcripts[conversationId]?.state.items.find(
      (item) => item.kind === 'user' && item.turnId === turnId && !item.steered,
    );
    if (message?.kind !== 'user') {
      return;
    }
    try {
      // The last reply is replaced: its turn is set aside (the files as they are), and the message goes again.
      await api.call('rewindConversation', { conversationId, turnId, keepFiles: true, overwrite: [], retry: true });
      await api.call('sendMessage', {
        conversationId,
        text: message.text,
        ...(options.withoutInstructions ? { withoutInstructions: true } : {}),
      });
    } catch (error) {
      get().showError(error);
    }
  },
  branchDialog: null,
  openBranch(turnId) {
    const { selection, openSummary } = get();
    if (selection.kind !== 'conversation' || !openSummary) {
      return;
    }
    set({
      branchDialog: {
        conversationId: selection.conversationId,
        turnId,
        agentId: get().nextAgent[selection.conversationId] ?? openSummary.agentId,
        restoreFiles: false,
        ownCopy: false,
        busy: false,
        problem: null,
      },
    });
  },
  closeBranch() {
    set({ branchDialog: null });
  },
  setBranchChoice(changes) {
    set((state) => ({ branchDialog: state.branchDialog && { ...state.branchDialog, ...changes } }));
  },
  async confirmBranch() {
    const dialog = get().branchDialog;
    if (!dialog || dialog.busy) {
      return;
    }
    set({ branchDialog: { ...dialog, busy: true, problem: null } });
    try {
      const { conversation, text, failed } = await api.call('branchConversation', {
        conversationId: dialog.conversationId,
        turnId: dialog.turnId,
        restoreFiles: dialog.restoreFiles,
        ...(dialog.ownCopy ? { ownCopy: true } : {}),
      });
      const branchId = conversation.conversationId;
      get().upsertSummary(conversation);
      set((state) => ({ branchDialog: null, composer: { ...state.composer, [branchId]: text } }));
      await get().select(branchId);
      get().setNextAgent(branchId, dialog.agentId);
      if (failed.length > 0) {
        set({ info: `Branched, but ${notPutBack(failed)}` });
      }
      get().focusMessageBox();
    } catch (error) {
      set((state) => ({ branchDialog: state.branchDialog && { ...state.branchDialog, busy: false, problem: messageOf(error) } }));
    }
  },
});
