/**
 * The Instructions dialog: the person's own instructions and the open conversation's (or the new
 * conversation's draft), a preview of where each part lands with the selected agent, saving, and
 * the person's per-agent choices (delivery off, command-line channels accepted).
 */
import type { InstructionText } from '../../../app/instructions/bundle.js';
import type { InstructionsSlice, Slice } from '../types.js';

const EMPTY: InstructionText = { text: '', intent: 'append' };

/** The instructions slice. */
export const instructionsSlice: Slice<InstructionsSlice> = (api) => (set, get) => {
  /** Only the newest preview request's answer is shown. */
  let previewGeneration = 0;
  const agentOfPane = (): string => {
    const { selection, openSummary, draft } = get();
    return selection.kind === 'conversation' ? (openSummary?.agentId ?? '') : draft.agentId;
  };
  const refreshPreview = async (): Promise<void> => {
    const { instructionsDialog } = get();
    const agentId = agentOfPane();
    if (!instructionsDialog || !agentId) {
      return;
    }
    const generation = ++previewGeneration;
    try {
      const { preview } = await api.call('previewInstructions', { agentId, person: instructionsDialog.person, conversation: instructionsDialog.conversation });
      if (generation === previewGeneration && get().instructionsDialog) {
        set((state) => ({ instructionsDialog: state.instructionsDialog && { ...state.instructionsDialog, preview, problem: null } }));
      }
    } catch (error) {
      if (generation === previewGeneration) {
        set((state) => ({ instructionsDialog: state.instructionsDialog && { ...state.instructionsDialog, preview: null, problem: error instanceof Error ? error.message : String(error) } }));
      }
    }
  };

  return {
    instructionsDialog: null,
    async openInstructions() {
      const { selection, draft } = get();
      try {
        const saved = await api.call('getInstructions', selection.kind === 'conversation' ? { conversationId: selection.conversationId } : {});
        const conversation = selection.kind === 'conversation' ? (saved.conversation ?? EMPTY) : (draft.instructions ?? EMPTY);
        set({ instructionsDialog: { person: saved.person, conversation, preview: null, problem: null, saving: false } });
        await refreshPreview();
      } catch (error) {
        get().showError(error);
      }
    },
    closeInstructions() {
      previewGeneration += 1;
      set({ instructionsDialog: null });
    },
    editInstructions(part, changes) {
      set((state) => ({ instructionsDialog: state.instructionsDialog && { ...state.instructionsDialog, [part]: { ...state.instructionsDialog[part], ...changes } } }));
      void refreshPreview();
    },
    async saveInstructions() {
      const dialog = get().instructionsDialog;
      if (!dialog) {
        return;
      }
      const { selection } = get();
      set({ instructionsDialog: { ...dialog, saving: true, problem: null } });
      try {
        if (selection.kind === 'conversation') {
          await api.call('saveInstructions', { person: dialog.person, conversationId: selection.conversationId, conversation: dialog.conversation });
        } else {
          await api.call('saveInstructions', { person: dialog.person });
          // A new conversation's own instructions go with it when its first message creates it.
          set((state) => ({ draft: { ...state.draft, instructions: dialog.conversation } }));
        }
        set({ instructionsDialog: null, info: 'Instructions saved. They apply from the next message.' });
      } catch (error) {
        set((state) => ({ instructionsDialog: state.instructionsDialog && { ...state.instructionsDialog, saving: false, problem: error instanceof Error ? error.message : String(error) } }));
      }
    },
    async setAgentInstructionSettings(settings) {
      const agentId = agentOfPane();
      if (!agentId) {
        return;
      }
      try {
        await api.call('setAgentInstructionSettings', { agentId, settings });
        // The agent's card says whether Baton delivers to it: read it again.
        set((state) => ({ cards: Object.fromEntries(Object.entries(state.cards).filter(([id]) => id !== agentId)) }));
        await Promise.all([refreshPreview(), get().describeAgent(agentId)]);
      } catch (error) {
        get().showError(error);
      }
    },
  };
};
