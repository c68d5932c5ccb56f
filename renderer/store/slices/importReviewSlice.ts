/**
 * An imported conversation's review: what it brings (folder, instructions, injectors, toolbox),
 * asked of the host when the conversation opens, and the person's confirmation, without which
 * nothing of it reaches an agent.
 */
import type { Slice } from '../types.js';
import type { ImportReview } from '../../../app/ipc/index.js';

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

/** The import review slice. */
export const importReviewSlice: Slice<ImportReviewSlice> = (api) => (set, get) => ({
  importReview: null,
  async checkImport(conversationId, open = false) {
    try {
      const { review } = await api.call('getImportReview', { conversationId });
      const { selection } = get();
      if (selection.kind !== 'conversation' || selection.conversationId !== conversationId) {
        return;
      }
      set({ importReview: review ? { conversationId, review, open, busy: false, problem: null } : null });
    } catch (error) {
      get().showError(error);
    }
  },
  openImportReview() {
    set((state) => ({ importReview: state.importReview && { ...state.importReview, open: true, problem: null } }));
  },
  closeImportReview() {
    set((state) => ({ importReview: state.importReview && { ...state.importReview, open: false } }));
  },
  async confirmImport() {
    const current = get().importReview;
    if (!current) {
      return false;
    }
    set({ importReview: { ...current, busy: true, problem: null } });
    try {
      await api.call('confirmImport', { conversationId: current.conversationId, cwd: current.review.cwd });
      set({ importReview: null, info: 'Imported conversation confirmed: its folder and settings apply from your next message.' });
      return true;
    } catch (error) {
      set((state) => ({
        importReview: state.importReview && {
          ...state.importReview,
          busy: false,
          problem: error instanceof Error ? error.message : String(error),
        },
      }));
      return false;
    }
  },
});
