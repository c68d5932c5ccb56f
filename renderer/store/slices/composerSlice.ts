/**
 * What is being written: the message box of each conversation (and of the new one), what is
 * attached to it, sending (creating the conversation first for a draft), the follow-up queued
 * while a reply runs, and where focus goes. Only what was sent leaves the box: anything typed or
 * attached meanwhile stays, and a message taken back goes ahead of what is there.
 */
import { ImportNotConfirmedError } from '../../../app/errors.js';
import { agentChoices, choicesToApply } from '../../persisted/agentChoices.js';
import { rememberAgent } from '../../persisted/lastAgent.js';
import { rememberFolder } from '../../persisted/recentFolders.js';
import { putBack, unsentText } from '../composerText.js';
import { type ComposerAttachment, composerKey, type RefusalChoice, refusalSettings, type SendOptions, type Slice } from '../types.js';

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
  /**
   * The message boxes whose message is being sent (by composer key), each with its send's number:
   * a draft's mark moves with its text to the conversation it became, so a new draft can be sent
   * while the first message is still on its way.
   */
  sending: Record<string, number>;
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
  /** Files of the working folder `cwd` on `machineId` (this computer when absent) matching `query`. */
  findFiles(cwd: string, query: string, machineId?: string): Promise<string[]>;
};

/** The composer slice. */
export const composerSlice: Slice<ComposerSlice> = (api) => (set, get) => {
  /** Numbers the sends (see `sending`). */
  let sends = 0;
  /** Sends a message to the agent picked for the next turn (a switch), forgetting the pick once the host has committed it. */
  const post = async (
    conversationId: string,
    text: string,
    attached: readonly ComposerAttachment[] = [],
    without: SendOptions = {},
  ): Promise<void> => {
    const agentId = get().nextAgent[conversationId];
    await api.call('sendMessage', {
      conversationId,
      text,
      ...(agentId ? { agentId } : {}),
      ...(attached.length > 0 ? { attachments: attached.map((entry) => entry.attachment) } : {}),
      ...(without.withoutInstructions ? { withoutInstructions: true } : {}),
      ...(without.withoutTools ? { withoutTools: true } : {}),
    });
    set((state) => {
      const { [conversationId]: _used, ...nextAgent } = state.nextAgent;
      return { nextAgent };
    });
  };
  /** Takes a conversation's queued follow-up off the queue. */
  const takeQueued = (conversationId: string): ComposerSlice['queued'][string] | undefined => {
    const queued = get().queued[conversationId];
    if (queued !== undefined) {
      set((state) => {
        const { [conversationId]: _taken, ...rest } = state.queued;
        return { queued: rest };
      });
    }
    return queued;
  };
  /** Puts a follow-up back into the message box, with what was attached to it (ahead of anything attached since). */
  const backIntoBox = (conversationId: string, queued: ComposerSlice['queued'][string]): void => {
    get().putInBox(conversationId, queued.text);
    set((state) => ({
      attachments: { ...state.attachments, [conversationId]: [...queued.attachments, ...(state.attachments[conversationId] ?? [])] },
    }));
  };
  /** Creates the new conversation the draft describes, moves what is in the draft's box to it, and opens it. */
  const createFromDraft = async (): Promise<string> => {
    const { draft } = get();
    const choices = choicesToApply(agentChoices(draft.agentId), draft.options);
    // Under the id of the session opened while the message was written, when it was opened for exactly this.
    const early = await get().takeEarlySession();
    const { conversation } = await api.call('newConversation', {
      agentId: draft.agentId,
      cwd: draft.cwd.trim(),
      ...(draft.instructions ? { instructions: draft.instructions } : {}),
      ...(draft.serverIds ? { serverIds: draft.serverIds } : {}),
      ...(draft.injectors ? { injectors: draft.injectors } : {}),
      ...(early ? { conversationId: early } : {}),
      ...(draft.machineId ? { machineId: draft.machineId } : {}),
    });
    // Recent folders are this computer's; the next new conversation starts with this agent.
    if (!draft.machineId) {
      rememberFolder(draft.cwd.trim());
    }
    rememberAgent(draft.agentId);
    set((state) => ({
      draft: { agentId: state.draft.agentId, cwd: state.draft.cwd, ...(state.draft.machineId ? { machineId: state.draft.machineId } : {}) },
    }));
    const { conversationId } = conversation;
    // Remembered by the host and applied when the agent's session starts, before the first prompt.
    for (const { optionId, value } of choices) {
      await api.call('setSessionOption', { conversationId, optionId, value });
    }
    set((state) => {
      const { draft: mark, ...sending } = state.sending;
      return {
        composer: { ...state.composer, [conversationId]: state.composer.draft ?? '', draft: '' },
        attachments: { ...state.attachments, [conversationId]: state.attachments.draft ?? [], draft: [] },
        sending: mark === undefined ? sending : { ...sending, [conversationId]: mark },
      };
    });
    if (get().view !== 'active') {
      await get().setView('active');
    }
    await get().select(conversationId);
    return conversationId;
  };

  return {
    composer: {},
    setAside: {},
    putInBox(key, text) {
      set((state) => {
        const { box, aside } = putBack(text, state.composer[key] ?? '', state.setAside[key]);
        const { [key]: _old, ...others } = state.setAside;
        return { composer: { ...state.composer, [key]: box }, setAside: aside === undefined ? others : { ...others, [key]: aside } };
      });
    },
    swapSetAside(key) {
      set((state) => {
        const aside = state.setAside[key];
        if (aside === undefined) {
          return {};
        }
        const current = state.composer[key] ?? '';
        const { [key]: _old, ...others } = state.setAside;
        return { composer: { ...state.composer, [key]: aside }, setAside: current.trim() === '' ? others : { ...others, [key]: current } };
      });
      get().focusMessageBox();
    },
    attachments: {},
    sending: {},
    messageBoxFocus: 0,
    focusMessageBox() {
      set((state) => ({ messageBoxFocus: state.messageBoxFocus + 1 }));
    },
    queued: {},
    setComposer(key, text) {
      set((state) => ({ composer: { ...state.composer, [key]: text } }));
    },
    addAttachment(key, attachment) {
      set((state) => ({ attachments: { ...state.attachments, [key]: [...(state.attachments[key] ?? []), attachment] } }));
    },
    removeAttachment(key, id) {
      set((state) => ({ attachments: { ...state.attachments, [key]: (state.attachments[key] ?? []).filter((entry) => entry.id !== id) } }));
    },
    async sendWithoutTools() {
      get().dismissError();
      await get().send({ withoutTools: true });
    },
    async resolveSendRefusal(choice) {
      const { selection, nextAgent, openSummary } = get();
      const agentId =
        selection.kind === 'conversation' ? (nextAgent[selection.conversationId] ?? openSummary?.agentId) : get().draft.agentId;
      if (!agentId) {
        return;
      }
      try {
        const settings = refusalSettings(choice);
        if (settings) {
          await api.call('setAgentInstructionSettings', { agentId, settings });
        }
        get().dismissError();
        await get().send({ withoutInstructions: choice === 'without' });
      } catch (error) {
        get().showError(error);
      }
    },
    async send(options = {}) {
      try {
        await get().submitBox((conversationId, text, attached) => post(conversationId, text, attached, options));
      } catch (error) {
        const { selection } = get();
        if (error instanceof ImportNotConfirmedError && selection.kind === 'conversation') {
          // The message stays in the box; the review says what must be confirmed first.
          await get().checkImport(selection.conversationId, true);
        } else {
          get().showError(error);
        }
      }
    },
    async submitBox(deliver) {
      const { selection, composer, sending } = get();
      const key = composerKey(selection);
      const typed = composer[key] ?? '';
      const text = typed.trim();
      const attached = get().attachments[key] ?? [];
      if (!text || sending[key] !== undefined) {
        return;
      }
      const mark = ++sends;
      set((state) => ({ sending: { ...state.sending, [key]: mark }, error: null }));
      try {
        const conversationId = selection.kind === 'draft' ? await createFromDraft() : selection.conversationId;
        await deliver(conversationId, text, attached);
        // Cleared only once the host has committed the message, and only of what was sent: what the
        // person typed or attached meanwhile stays.
        set((state) => {
          const left = unsentText(state.composer[conversationId] ?? '', typed);
          // A draft set aside when this message was put back returns once it is sent (unless more was typed since).
          const aside = left.trim() === '' ? state.setAside[conversationId] : undefined;
          const { [conversationId]: _returned, ...others } = state.setAside;
          return {
            ...(aside !== undefined ? { setAside: others } : {}),
            composer: { ...state.composer, [conversationId]: aside ?? left },
            attachments: {
              ...state.attachments,
              [conversationId]: (state.attachments[conversationId] ?? []).filter((entry) => !attached.includes(entry)),
            },
          };
        });
      } finally {
        // This send's mark, wherever it moved.
        set((state) => ({ sending: Object.fromEntries(Object.entries(state.sending).filter(([, held]) => held !== mark)) }));
      }
    },
    editMessage(text) {
      const key = composerKey(get().selection);
      // Ahead of anything already in the box (which stays): nothing the person wrote is replaced.
      get().putInBox(key, text);
      get().focusMessageBox();
    },
    queue() {
      const { selection, composer, attachments, sending } = get();
      const text = (composer[composerKey(selection)] ?? '').trim();
      // While a message is being sent its turn may already run, the box still holding it: a
      // second Enter then is not a follow-up (it would send the same message twice).
      if (selection.kind !== 'conversation' || !text || sending[selection.conversationId] !== undefined) {
        return;
      }
      const { conversationId } = selection;
      const attached = attachments[conversationId] ?? [];
      set((state) => ({
        queued: { ...state.queued, [conversationId]: { text, attachments: attached } },
        composer: { ...state.composer, [conversationId]: '' },
        attachments: { ...state.attachments, [conversationId]: [] },
      }));
    },
    unqueue(conversationId) {
      const queued = takeQueued(conversationId);
      if (queued) {
        backIntoBox(conversationId, queued);
        // The button goes with the queued message: focus goes to the box.
        get().focusMessageBox();
      }
    },
    async sendQueued(conversationId) {
      const queued = takeQueued(conversationId);
      if (queued === undefined) {
        return;
      }
      try {
        await post(conversationId, queued.text, queued.attachments);
      } catch (error) {
        // Nothing is lost: the message and what was attached go back into the box.
        backIntoBox(conversationId, queued);
        get().showError(error);
      }
    },
    async steerQueued(conversationId) {
      const queued = takeQueued(conversationId);
      if (queued === undefined) {
        return;
      }
      try {
        const { steered } = await api.call('steerMessage', { conversationId, text: queued.text });
        if (!steered) {
          // The turn ended meanwhile: it goes as a message of its own, as queued follow-ups do.
          set((state) => ({ queued: { ...state.queued, [conversationId]: queued } }));
        }
      } catch (error) {
        backIntoBox(conversationId, queued);
        get().showError(error);
      }
    },
    async completeFolder(typed) {
      const { machineId } = get().draft;
      return (await api.call('listFolders', { typed, ...(machineId ? { machineId } : {}) })).folders;
    },
    async findFiles(cwd, query, machineId) {
      return (await api.call('listFolderFiles', { cwd, query, ...(machineId ? { machineId } : {}) })).files;
    },
  };
};
