/**
 * The Instructions dialog: the person's own instructions and the open conversation's (or the new
 * conversation's draft), a preview of where each part lands with the selected agent, saving, and
 * the person's per-agent choices (delivery off, command-line channels accepted).
 */
import type { CannotTake, Slice } from '../types.js';
import type { InstructionText } from '../../../app/instructions/bundle.js';
import type { AgentInstructionSettings } from '../../../app/instructions/delivery.js';
import type { InjectorChoice } from '../../../app/instructions/injectors.js';
import type { InstructionPreview } from '../../../app/ipc/index.js';

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

const EMPTY: InstructionText = { text: '', intent: 'append' };
const NO_INJECTORS: InjectorChoice = { names: [], off: false };

/** The instructions slice. */
export const instructionsSlice: Slice<InstructionsSlice> = (api) => (set, get) => {
  /** Only the newest preview request's answer is shown. */
  let previewGeneration = 0;
  /** The folder trust a Cancel is putting back. */
  let reverting: Promise<void> = Promise.resolve();
  /** The agent the pane's next message goes to (one picked for the next turn, after a switch, comes first). */
  const agentOfPane = (): string => {
    const { selection, openSummary, draft, nextAgent } = get();
    return selection.kind === 'conversation' ? (nextAgent[selection.conversationId] ?? openSummary?.agentId ?? '') : draft.agentId;
  };
  const folderOfPane = (): string | undefined => {
    const { selection, openSummary, draft } = get();
    const cwd = selection.kind === 'conversation' ? openSummary?.cwd : draft.cwd.trim();
    return cwd ? cwd : undefined;
  };
  /** The machine of the pane's folder, as the requests about it name it (absent: this computer). */
  const machineOfPane = (): { machineId?: string } => {
    const { selection, openSummary, draft } = get();
    const machineId = selection.kind === 'conversation' ? openSummary?.machine : draft.machineId;
    return machineId ? { machineId } : {};
  };
  /** What `previewInstructions` is asked with for `agentId`: the dialog as edited (its profile is the pane's agent's only). */
  const previewParams = (dialog: NonNullable<ReturnType<typeof get>['instructionsDialog']>, agentId: string) => {
    const cwd = folderOfPane();
    return {
      agentId,
      person: dialog.person,
      conversation: dialog.conversation,
      ...(agentId === agentOfPane() && dialog.profile ? { profile: dialog.profile } : {}),
      ...(cwd ? { cwd, ...machineOfPane() } : {}),
      injectors: dialog.injectors,
    };
  };
  const refreshPreview = async (): Promise<void> => {
    const { instructionsDialog } = get();
    const agentId = agentOfPane();
    if (!instructionsDialog || !agentId) {
      return;
    }
    const generation = ++previewGeneration;
    try {
      const { preview } = await api.call('previewInstructions', previewParams(instructionsDialog, agentId));
      if (generation === previewGeneration && get().instructionsDialog) {
        set((state) => ({
          instructionsDialog: state.instructionsDialog && {
            ...state.instructionsDialog,
            preview,
            // The profile shown is the saved one until the person edits it.
            profile: state.instructionsDialog.profile ?? { text: preview.profile.text, intent: preview.profile.intent },
            problem: null,
          },
        }));
      }
    } catch (error) {
      if (generation === previewGeneration) {
        set((state) => ({
          instructionsDialog: state.instructionsDialog && {
            ...state.instructionsDialog,
            preview: null,
            problem: error instanceof Error ? error.message : String(error),
          },
        }));
      }
    }
  };

  /** Each installed agent asked (in parallel) whether it would take the instructions as written: those that would refuse. */
  const agentsThatRefuse = async (dialog: NonNullable<ReturnType<typeof get>['instructionsDialog']>): Promise<CannotTake[]> => {
    const answers = await Promise.all(
      get()
        .agents.filter((agent) => agent.available)
        .map(async (agent): Promise<CannotTake | undefined> => {
          try {
            const { preview } = await api.call('previewInstructions', previewParams(dialog, agent.agentId));
            return preview.refusal
              ? { agentId: agent.agentId, agentName: preview.agentName, refusal: preview.refusal, commandLine: preview.commandLine }
              : undefined;
          } catch {
            // An agent that cannot be asked now (it fails to start, it wants a log-in) does not hold up
            // saving: its own turns say what it cannot take, with the same ways out.
            return undefined;
          }
        }),
    );
    return answers.filter((answer): answer is CannotTake => answer !== undefined);
  };

  return {
    instructionsDialog: null,
    async openInstructions() {
      // A trust undone by the last Cancel is in place before the dialog shows the folder again.
      await reverting;
      const { selection, draft } = get();
      try {
        const saved = await api.call(
          'getInstructions',
          selection.kind === 'conversation' ? { conversationId: selection.conversationId } : {},
        );
        const conversation = selection.kind === 'conversation' ? (saved.conversation ?? EMPTY) : (draft.instructions ?? EMPTY);
        const injectors = (selection.kind === 'conversation' ? saved.injectors : draft.injectors) ?? NO_INJECTORS;
        set({
          instructionsDialog: { person: saved.person, conversation, profile: null, injectors, preview: null, problem: null, saving: false },
        });
        await refreshPreview();
      } catch (error) {
        get().showError(error);
      }
    },
    closeInstructions() {
      previewGeneration += 1;
      const dialog = get().instructionsDialog;
      const cwd = folderOfPane();
      const machine = machineOfPane();
      set({ instructionsDialog: null });
      // Closed without saving: trusting (or no longer trusting) the folder is undone too.
      if (dialog?.trustBefore !== undefined && cwd) {
        const sha256 = dialog.preview?.project.sha256 ?? undefined;
        reverting = api
          .call('setFolderTrust', { cwd, ...machine, trusted: dialog.trustBefore, ...(sha256 ? { sha256 } : {}) })
          .then(() => undefined)
          .catch((error: unknown) => get().showError(error));
      }
    },
    editInstructions(part, changes) {
      set((state) => ({
        // Changed text is asked about again on Save.
        instructionsDialog: state.instructionsDialog && {
          ...state.instructionsDialog,
          cannotTake: undefined,
          [part]: { ...(state.instructionsDialog[part] ?? { text: '', intent: 'append' }), ...changes },
        },
      }));
      void refreshPreview();
    },
    editInjectors({ select, off }) {
      set((state) => {
        const dialog = state.instructionsDialog;
        if (!dialog) {
          return {};
        }
        const names = select
          ? select.selected
            ? [...dialog.injectors.names.filter((name) => name !== select.name), select.name]
            : dialog.injectors.names.filter((name) => name !== select.name)
          : dialog.injectors.names;
        return { instructionsDialog: { ...dialog, cannotTake: undefined, injectors: { names, off: off ?? dialog.injectors.off } } };
      });
      void refreshPreview();
    },
    async setFolderTrust(trusted) {
      const cwd = folderOfPane();
      const sha256 = get().instructionsDialog?.preview?.project.sha256 ?? undefined;
      if (!cwd) {
        return;
      }
      try {
        // What Cancel puts back (a folder whose trusted text changed since cannot be put back as it was: left as chosen).
        const shown = get().instructionsDialog?.preview?.project.state;
        const before = shown === 'trusted' ? true : shown === 'untrusted' ? false : undefined;
        await api.call('setFolderTrust', { cwd, ...machineOfPane(), trusted, ...(sha256 ? { sha256 } : {}) });
        // Remembered until Save, so Cancel can put it back.
        set((state) => ({
          instructionsDialog: state.instructionsDialog && {
            ...state.instructionsDialog,
            ...((state.instructionsDialog.trustBefore ?? before) !== undefined
              ? { trustBefore: state.instructionsDialog.trustBefore ?? before }
              : {}),
          },
        }));
        await refreshPreview();
      } catch (error) {
        set((state) => ({
          instructionsDialog: state.instructionsDialog && {
            ...state.instructionsDialog,
            problem: error instanceof Error ? error.message : String(error),
          },
        }));
      }
    },
    async saveInstructions(anyway = false) {
      const dialog = get().instructionsDialog;
      if (!dialog || dialog.saving) {
        return;
      }
      const { selection } = get();
      set({ instructionsDialog: { ...dialog, saving: true, problem: null } });
      try {
        // Said before saving, not on the next message: which agents would refuse them, each with its
        // ways out. Save again (it reads "Save anyway" then) saves as they are.
        if (
          !anyway &&
          dialog.cannotTake === undefined &&
          [dialog.person, dialog.conversation, dialog.profile].some((part) => part && part.text.trim() !== '')
        ) {
          set({ instructionsDialog: { ...dialog, saving: true, checking: true, problem: null } });
          const cannotTake = await agentsThatRefuse(dialog);
          if (cannotTake.length > 0) {
            set((state) => ({
              instructionsDialog: state.instructionsDialog && { ...state.instructionsDialog, saving: false, checking: false, cannotTake },
            }));
            return;
          }
        }
        const agentId = agentOfPane();
        const savedProfile = dialog.preview?.profile;
        if (
          agentId &&
          dialog.profile &&
          (!savedProfile || savedProfile.text !== dialog.profile.text || savedProfile.intent !== dialog.profile.intent)
        ) {
          await api.call('saveAgentProfile', { agentId, profile: dialog.profile });
        }
        if (selection.kind === 'conversation') {
          await api.call('saveInstructions', {
            person: dialog.person,
            conversationId: selection.conversationId,
            conversation: dialog.conversation,
            injectors: dialog.injectors,
          });
        } else {
          await api.call('saveInstructions', { person: dialog.person });
          // A new conversation's own instructions and injectors go with it when its first message creates it.
          set((state) => ({ draft: { ...state.draft, instructions: dialog.conversation, injectors: dialog.injectors } }));
        }
        set({ instructionsDialog: null, info: 'Instructions saved. They apply from the next message.' });
      } catch (error) {
        set((state) => ({
          instructionsDialog: state.instructionsDialog && {
            ...state.instructionsDialog,
            saving: false,
            checking: false,
            problem: error instanceof Error ? error.message : String(error),
          },
        }));
      }
    },
    async setAgentInstructionSettings(settings, chosen) {
      const agentId = chosen ?? agentOfPane();
      if (!agentId) {
        return;
      }
      try {
        await api.call('setAgentInstructionSettings', { agentId, settings });
        // An agent of the Save list that takes them now (or gets none) leaves the list.
        const dialog = get().instructionsDialog;
        if (dialog?.cannotTake?.some((entry) => entry.agentId === agentId)) {
          const still = await agentsThatRefuse(dialog);
          set((state) => ({
            instructionsDialog: state.instructionsDialog && {
              ...state.instructionsDialog,
              cannotTake: (state.instructionsDialog.cannotTake ?? []).filter(
                (entry) => entry.agentId !== agentId || still.some((other) => other.agentId === agentId),
              ),
            },
          }));
        }
        // The agent's card says whether Baton delivers to it: read it again.
        set((state) => ({ cards: Object.fromEntries(Object.entries(state.cards).filter(([id]) => id !== agentId)) }));
        await Promise.all([refreshPreview(), get().describeAgent(agentId)]);
      } catch (error) {
        get().showError(error);
      }
    },
  };
};
