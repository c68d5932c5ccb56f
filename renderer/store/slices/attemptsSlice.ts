/**
 * "Ask several agents" in the page: dialog "Ask several agents" (which agents, each with its mode
 * and model), each attempt's conversation read and kept current beside the one that asked, each
 * attempt's changes (for its files-changed line and dialog "Compare attempts"), dialog "Keep this
 * attempt" (the files it writes, those the person changed since left unless ticked), Continue,
 * Stop, a follow-up to one attempt alone, and asking an agent to compare.
 */
import type { Result } from '../../../app/ipc/index.js';
import { readPreference, writePreference } from '../../persisted/preferences.js';
import { shownError, type Slice } from '../types.js';

/** Each attempt in a container of its own: whether, from which image, with a network or not. */
export type AskContainer = { on: boolean; image: string; network: boolean };

/** Dialog "Ask several agents": the agents ticked, the options picked for each, and containers or not. */
export type AskDialogState = {
  checked: string[];
  options: Record<string, Record<string, string>>;
  container: AskContainer;
  busy: boolean;
  problem: string | null;
};

const CONTAINER_KEY = 'baton.attemptContainer';

/** The container choice as last asked with (kept with the preferences): off, no image, no network at first. */
function lastContainer(): AskContainer {
  try {
    const value = JSON.parse(readPreference(CONTAINER_KEY) ?? '{}') as Partial<AskContainer>;
    return { on: value.on === true, image: typeof value.image === 'string' ? value.image : '', network: value.network === true };
  } catch {
    return { on: false, image: '', network: false };
  }
}

/** Dialog "Keep this attempt". */
export type KeepDialogState = {
  conversationId: string;
  attemptsId: string;
  attemptId: string;
  agentName: string;
  preview: Result<'previewKeep'> | null;
  overwrite: string[];
  busy: boolean;
  problem: string | null;
};

/** Dialog "Compare attempts". */
export type CompareDialogState = { conversationId: string; attemptsId: string };

/** The attempts slice. */
export type AttemptsSlice = {
  askDialog: AskDialogState | null;
  openAskDialog(): void;
  closeAskDialog(): void;
  /** Ticks or unticks an agent; sets an option for one. */
  setAskChoice(change: { agentId: string; checked?: boolean; option?: { optionId: string; value: string } }): void;
  /** Changes the container choice of the dialog. */
  setAskContainer(change: Partial<AskContainer>): void;
  /** Asks the ticked agents the message in the box (creating the conversation first for a new one). */
  confirmAsk(): Promise<void>;
  /** Each ask's attempts' changes, by attempts id (as last read). */
  attemptChanges: Record<string, Result<'compareAttempts'> | { problem: string }>;
  loadAttemptChanges(conversationId: string, attemptsId: string): Promise<void>;
  compareDialog: CompareDialogState | null;
  openCompare(conversationId: string, attemptsId: string): void;
  closeCompare(): void;
  keepDialog: KeepDialogState | null;
  openKeep(conversationId: string, attemptsId: string, attemptId: string, agentName: string): Promise<void>;
  setKeepOverwrite(path: string, on: boolean): void;
  closeKeep(): void;
  confirmKeep(): Promise<void>;
  /** Opens the attempt as a branch of its own (and shows it). */
  continueAttempt(conversationId: string, attemptsId: string, attemptId: string): Promise<void>;
  setAttemptsAside(conversationId: string, attemptsId: string): Promise<void>;
  askToCompare(conversationId: string, attemptsId: string, agentId: string): Promise<void>;
  /** Stops the turns of these attempts' conversations. */
  stopAttempts(conversationIds: readonly string[]): Promise<void>;
  /** Sends a message to one attempt alone (before one is kept); resolves true once it went. */
  sendToAttempt(conversationId: string, text: string): Promise<boolean>;
};

/** The attempts slice. */
export const attemptsSlice: Slice<AttemptsSlice> = (api) => (set, get) => ({
  askDialog: null,
  openAskDialog() {
    set({ askDialog: { checked: [], options: {}, container: lastContainer(), busy: false, problem: null } });
  },
  closeAskDialog() {
    set({ askDialog: null });
  },
  setAskChoice({ agentId, checked, option }) {
    set((state) => {
      const dialog = state.askDialog;
      if (!dialog) {
        return {};
      }
      const ticked =
        checked === undefined
          ? dialog.checked
          : checked
            ? [...new Set([...dialog.checked, agentId])]
            : dialog.checked.filter((id) => id !== agentId);
      const options = option
        ? { ...dialog.options, [agentId]: { ...dialog.options[agentId], [option.optionId]: option.value } }
        : dialog.options;
      return { askDialog: { ...dialog, checked: ticked, options, problem: null } };
    });
  },
  setAskContainer(change) {
    set((state) =>
      state.askDialog ? { askDialog: { ...state.askDialog, container: { ...state.askDialog.container, ...change }, problem: null } } : {},
    );
  },
  async confirmAsk() {
    const dialog = get().askDialog;
    if (!dialog || dialog.busy) {
      return;
    }
    set({ askDialog: { ...dialog, busy: true, problem: null } });
    try {
      await get().submitBox(async (conversationId, text) => {
        await api.call('askAgents', {
          conversationId,
          text,
          agents: dialog.checked.map((agentId) => ({ agentId, options: dialog.options[agentId] ?? {} })),
          ...(dialog.container.on ? { container: { image: dialog.container.image.trim(), network: dialog.container.network } } : {}),
        });
      });
      writePreference(CONTAINER_KEY, JSON.stringify(dialog.container));
      set({ askDialog: null });
    } catch (error) {
      set((state) => (state.askDialog ? { askDialog: { ...state.askDialog, busy: false, problem: shownError(error).message } } : {}));
    }
  },
  attemptChanges: {},
  async loadAttemptChanges(conversationId, attemptsId) {
    try {
      const result = await api.call('compareAttempts', { conversationId, attemptsId });
      set((state) => ({ attemptChanges: { ...state.attemptChanges, [attemptsId]: result } }));
    } catch (error) {
      set((state) => ({ attemptChanges: { ...state.attemptChanges, [attemptsId]: { problem: shownError(error).message } } }));
    }
  },
  compareDialog: null,
  openCompare(conversationId, attemptsId) {
    set({ compareDialog: { conversationId, attemptsId } });
    void get().loadAttemptChanges(conversationId, attemptsId);
  },
  closeCompare() {
    set({ compareDialog: null });
  },
  keepDialog: null,
  async openKeep(conversationId, attemptsId, attemptId, agentName) {
    set({ keepDialog: { conversationId, attemptsId, attemptId, agentName, preview: null, overwrite: [], busy: false, problem: null } });
    try {
      const preview = await api.call('previewKeep', { conversationId, attemptsId, attemptId });
      set((state) => (state.keepDialog?.attemptId === attemptId ? { keepDialog: { ...state.keepDialog, preview } } : {}));
    } catch (error) {
      set((state) =>
        state.keepDialog?.attemptId === attemptId ? { keepDialog: { ...state.keepDialog, problem: shownError(error).message } } : {},
      );
    }
  },
  setKeepOverwrite(path, on) {
    set((state) =>
      state.keepDialog
        ? {
            keepDialog: {
              ...state.keepDialog,
              overwrite: on
                ? [...new Set([...state.keepDialog.overwrite, path])]
                : state.keepDialog.overwrite.filter((file) => file !== path),
            },
          }
        : {},
    );
  },
  closeKeep() {
    set({ keepDialog: null });
  },
  async confirmKeep() {
    const dialog = get().keepDialog;
    if (!dialog || dialog.busy || !dialog.preview) {
      return;
    }
    set({ keepDialog: { ...dialog, busy: true, problem: null } });
    try {
      const { applied, left, failed } = await api.call('keepAttempt', {
        conversationId: dialog.conversationId,
        attemptsId: dialog.attemptsId,
        attemptId: dialog.attemptId,
        overwrite: dialog.overwrite,
      });
      const parts = [
        `Kept ${dialog.agentName}'s attempt: ${applied.length} file${applied.length === 1 ? '' : 's'} written into your folder.`,
      ];
      if (left.length > 0) {
        parts.push(`Left as you had them: ${left.join(', ')}.`);
      }
      if (failed.length > 0) {
        parts.push(`Not written: ${failed.map((file) => `${file.path} (${file.reason})`).join(', ')}.`);
      }
      set({ keepDialog: null, info: parts.join(' ') });
    } catch (error) {
      set((state) => (state.keepDialog ? { keepDialog: { ...state.keepDialog, busy: false, problem: shownError(error).message } } : {}));
    }
  },
  async continueAttempt(conversationId, attemptsId, attemptId) {
    try {
      const { conversation } = await api.call('continueAttempt', { conversationId, attemptsId, attemptId });
      get().upsertSummary(conversation);
      await get().select(conversation.conversationId);
    } catch (error) {
      get().showError(error);
    }
  },
  async setAttemptsAside(conversationId, attemptsId) {
    try {
      const { failed } = await api.call('setAttemptsAside', { conversationId, attemptsId });
      if (failed.length > 0) {
        get().showError(new Error(`Some copies could not be removed: ${failed.map((entry) => entry.reason).join('; ')}`));
      }
    } catch (error) {
      get().showError(error);
    }
  },
  async askToCompare(conversationId, attemptsId, agentId) {
    try {
      await api.call('askToCompare', { conversationId, attemptsId, agentId });
    } catch (error) {
      get().showError(error);
    }
  },
  async stopAttempts(conversationIds) {
    await Promise.all(
      conversationIds.map((conversationId) => api.call('cancelTurn', { conversationId }).catch((error: unknown) => get().showError(error))),
    );
  },
  async sendToAttempt(conversationId, text) {
    try {
      await api.call('sendMessage', { conversationId, text });
      return true;
    } catch (error) {
      get().showError(error);
      return false;
    }
  },
});
