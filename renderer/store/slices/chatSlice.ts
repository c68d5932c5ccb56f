/** The open conversation: loading its transcript, the draft of a new one, sending, stopping, answering permission questions. */
import type { Envelope } from '../../../app/events/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { rememberFolder } from '../../components/recentFolders.js';
import { applyEnvelopes, bufferedTail, readInSlices } from '../transcriptBuffer.js';
import { composerKey, type ChatSlice, type ComposerAttachment, type Slice } from '../types.js';
import { agentChoices, choicesToApply, rememberChoice } from '../../components/agentChoices.js';
import { putBack, unsentText } from '../composerText.js';
import { ImportNotConfirmedError } from '../../../app/errors.js';

/** Turns read when a conversation opens; "Show earlier" doubles it. */
const TURNS_PER_PAGE = 50;
/** Events per answer of a read (a message of this size is received and checked in a few milliseconds). */
const EVENTS_PER_PAGE = 1_500;

/** Focus goes to the message box (after "Edit and resend", or taking back a queued follow-up). */
function focusMessageBox(): void {
  document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.focus();
}

/** The chat slice. */
export const chatSlice: Slice<ChatSlice> = (api) => (set, get) => {
  // Events pushed while a transcript is being read; applied once the read arrives.
  const arrivedDuringRead = new Map<string, Envelope[]>();
  // Pushed events wait for the next animation frame and are applied together: a reply streaming
  // hundreds of chunks a second renders once per frame, not once per chunk.
  const pending = new Map<string, Envelope[]>();
  // Summaries pushed with each commit wait for the same frame: only the newest of each counts.
  const pendingSummaries = new Map<string, ConversationSummary>();
  let frame: number | undefined;
  const flush = (): void => {
    frame = undefined;
    const batches = [...pending];
    pending.clear();
    const summaries = [...pendingSummaries.values()];
    pendingSummaries.clear();
    for (const summary of summaries) {
      get().upsertSummary(summary);
    }
    set((state) => {
      const transcripts = { ...state.transcripts };
      for (const [conversationId, envelopes] of batches) {
        const existing = transcripts[conversationId];
        // Only transcripts this window has open are kept current; others are read when opened.
        if (existing) {
          transcripts[conversationId] = applyEnvelopes(existing, envelopes);
        }
      }
      return { transcripts };
    });
  };
  /** Sends a message to the agent picked for the next turn (a switch), forgetting the pick once the host has committed it. */
  const post = async (conversationId: string, text: string, attached: readonly ComposerAttachment[] = []): Promise<void> => {
    const agentId = get().nextAgent[conversationId];
    await api.call('sendMessage', { conversationId, text, ...(agentId ? { agentId } : {}), ...(attached.length > 0 ? { attachments: attached.map((entry) => entry.attachment) } : {}) });
    set((state) => {
      const { [conversationId]: _used, ...nextAgent } = state.nextAgent;
      return { nextAgent };
    });
  };
  /** Takes a conversation's queued follow-up off the queue. */
  const takeQueued = (conversationId: string): ChatSlice['queued'][string] | undefined => {
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
  const backIntoBox = (conversationId: string, queued: ChatSlice['queued'][string]): void => {
    set((state) => ({ composer: { ...state.composer, [conversationId]: putBack(queued.text, state.composer[conversationId] ?? '') }, attachments: { ...state.attachments, [conversationId]: [...queued.attachments, ...(state.attachments[conversationId] ?? [])] } }));
  };
  const schedule = (): void => {
    if (frame === undefined) {
      frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame(flush) : (setTimeout(flush, 16));
    }
  };

  const load = async (conversationId: string, aroundSeq?: number): Promise<void> => {
    arrivedDuringRead.set(conversationId, []);
    try {
      const turns = get().turnsShown[conversationId] ?? TURNS_PER_PAGE;
      const { events, conversation, firstSeq, nextSeq, context } = await api.call('openConversation', { conversationId, turns, maxEvents: EVENTS_PER_PAGE, ...(aroundSeq === undefined ? {} : { aroundSeq }) });
      // A long read comes in pages, so that no one message takes a long task to receive and check.
      async function* pages(): AsyncGenerator<readonly Envelope[]> {
        yield events;
        for (let next = nextSeq; next !== null; ) {
          const page = await api.call('readConversationEvents', { conversationId, fromSeq: next, limit: EVENTS_PER_PAGE });
          yield page.events;
          next = page.nextSeq;
        }
      }
      const read = await readInSlices(bufferedTail(context, firstSeq, []), pages());
      const buffered = applyEnvelopes(read, arrivedDuringRead.get(conversationId) ?? []);
      set((state) => ({ transcripts: { ...state.transcripts, [conversationId]: buffered } }));
      get().upsertSummary(conversation);
    } catch (error) {
      get().showError(error);
    } finally {
      arrivedDuringRead.delete(conversationId);
    }
  };

  return {
    transcripts: {},
    attachments: {},
    turnsShown: {},
    selection: { kind: 'draft' },
    openSummary: null,
    focus: null,
    draft: { agentId: '', cwd: '' },
    composer: {},
    sending: false,
    nextAgent: {},
    sidebarOpen: false,
    setSidebarOpen(open) {
      set({ sidebarOpen: open });
    },
    newConversation() {
      set({ selection: { kind: 'draft' }, openSummary: null, focus: null, error: null, sidebarOpen: false, settings: null });
    },
    async select(conversationId, focusSeq) {
      set((state) => ({
        selection: { kind: 'conversation', conversationId },
        settings: null,
        // Shown at once from the list (or as it was); the read below brings the current one.
        openSummary: state.conversations.find((c) => c.conversationId === conversationId) ?? (state.openSummary?.conversationId === conversationId ? state.openSummary : null),
        focus: focusSeq === undefined ? null : { conversationId, seq: focusSeq },
        error: null,
        sidebarOpen: false,
        importReview: state.importReview?.conversationId === conversationId ? state.importReview : null,
      }));
      await load(conversationId, focusSeq);
      await get().checkImport(conversationId);
    },
    async showEarlier() {
      const { selection } = get();
      if (selection.kind !== 'conversation') {
        return;
      }
      const { conversationId } = selection;
      set((state) => ({ turnsShown: { ...state.turnsShown, [conversationId]: (state.turnsShown[conversationId] ?? TURNS_PER_PAGE) * 2 } }));
      await load(conversationId, get().transcripts[conversationId]?.firstSeq);
    },
    receiveSummary(summary) {
      pendingSummaries.set(summary.conversationId, summary);
      schedule();
    },
    receiveRemoval(conversationId) {
      pendingSummaries.delete(conversationId);
      get().removeSummary(conversationId);
    },
    receiveEnvelopes(envelopes) {
      for (const envelope of envelopes) {
        const { conversationId } = envelope;
        arrivedDuringRead.get(conversationId)?.push(envelope);
        if (get().transcripts[conversationId]) {
          const batch = pending.get(conversationId);
          if (batch) {
            batch.push(envelope);
          } else {
            pending.set(conversationId, [envelope]);
          }
          schedule();
        }
      }
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
      set((state) => ({ draft: { ...state.draft, cwd } }));
    },
    setComposer(key, text) {
      set((state) => ({ composer: { ...state.composer, [key]: text } }));
    },
    addAttachment(key, attachment) {
      set((state) => ({ attachments: { ...state.attachments, [key]: [...(state.attachments[key] ?? []), attachment] } }));
    },
    removeAttachment(key, id) {
      set((state) => ({ attachments: { ...state.attachments, [key]: (state.attachments[key] ?? []).filter((entry) => entry.id !== id) } }));
    },
    async send() {
      const { selection, draft, composer, sending } = get();
      const typed = composer[composerKey(selection)] ?? '';
      const text = typed.trim();
      const attached = get().attachments[composerKey(selection)] ?? [];
      if (!text || sending) {
        return;
      }
      set({ sending: true, error: null });
      try {
        let conversationId: string;
        if (selection.kind === 'draft') {
          const choices = choicesToApply(agentChoices(draft.agentId), draft.options);
          const { conversation } = await api.call('newConversation', { agentId: draft.agentId, cwd: draft.cwd.trim(), ...(draft.instructions ? { instructions: draft.instructions } : {}), ...(draft.serverIds ? { serverIds: draft.serverIds } : {}), ...(draft.injectors ? { injectors: draft.injectors } : {}) });
          rememberFolder(draft.cwd.trim());
          set((state) => ({ draft: { agentId: state.draft.agentId, cwd: state.draft.cwd } }));
          conversationId = conversation.conversationId;
          // Remembered by the host and applied when the agent's session starts, before the first prompt.
          for (const { optionId, value } of choices) {
            await api.call('setSessionOption', { conversationId, optionId, value });
          }
          set((state) => ({ composer: { ...state.composer, [conversationId]: state.composer.draft ?? '', draft: '' }, attachments: { ...state.attachments, [conversationId]: state.attachments.draft ?? [], draft: [] } }));
          if (get().view !== 'active') {
            await get().setView('active');
          }
          await get().select(conversationId);
        } else {
          conversationId = selection.conversationId;
        }
        await post(conversationId, text, attached);
        // Cleared only once the host has committed the message, and only of what was sent: what the
        // person typed or attached meanwhile stays.
        set((state) => ({
          composer: { ...state.composer, [conversationId]: unsentText(state.composer[conversationId] ?? '', typed) },
          attachments: { ...state.attachments, [conversationId]: (state.attachments[conversationId] ?? []).filter((entry) => !attached.includes(entry)) },
        }));
      } catch (error) {
        if (error instanceof ImportNotConfirmedError && selection.kind === 'conversation') {
          // The message stays in the box; the review says what must be confirmed first.
          await get().checkImport(selection.conversationId, true);
        } else {
          get().showError(error);
        }
      } finally {
        set({ sending: false });
      }
    },
    editMessage(text) {
      const key = composerKey(get().selection);
      // Ahead of anything already in the box (which stays): nothing the person wrote is replaced.
      set((state) => ({ composer: { ...state.composer, [key]: putBack(text, state.composer[key] ?? '') } }));
      focusMessageBox();
    },
    async retry(turnId) {
      const { selection, transcripts } = get();
      if (selection.kind !== 'conversation') {
        return;
      }
      const text = transcripts[selection.conversationId]?.state.items.find((item) => item.kind === 'user' && item.turnId === turnId);
      if (text?.kind === 'user') {
        await api.call('sendMessage', { conversationId: selection.conversationId, text: text.text }).catch((error: unknown) => get().showError(error));
      }
    },
    queued: {},
    queue() {
      const { selection, composer, attachments } = get();
      const text = (composer[composerKey(selection)] ?? '').trim();
      if (selection.kind !== 'conversation' || !text) {
        return;
      }
      const { conversationId } = selection;
      const attached = attachments[conversationId] ?? [];
      set((state) => ({ queued: { ...state.queued, [conversationId]: { text, attachments: attached } }, composer: { ...state.composer, [conversationId]: '' }, attachments: { ...state.attachments, [conversationId]: [] } }));
    },
    unqueue(conversationId) {
      const queued = takeQueued(conversationId);
      if (queued) {
        backIntoBox(conversationId, queued);
        // The button goes with the queued message: focus goes to the box.
        focusMessageBox();
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
    async cancel() {
      const { selection } = get();
      if (selection.kind === 'conversation') {
        await api.call('cancelTurn', { conversationId: selection.conversationId }).catch((error: unknown) => get().showError(error));
      }
    },
    async setSessionOption(optionId, value) {
      const { selection } = get();
      if (selection.kind === 'conversation') {
        const agentId = get().transcripts[selection.conversationId]?.state.agentId;
        if (agentId) {
          rememberChoice(agentId, optionId, value);
        }
        await api.call('setSessionOption', { conversationId: selection.conversationId, optionId, value }).catch((error: unknown) => get().showError(error));
      }
    },
    async answerPermission(requestId, optionId) {
      const { selection } = get();
      if (selection.kind === 'conversation') {
        await api.call('answerPermission', { conversationId: selection.conversationId, requestId, optionId }).catch((error: unknown) => get().showError(error));
      }
    },
    async answerElicitation(requestId, action, content) {
      const { selection } = get();
      if (selection.kind !== 'conversation') {
        return false;
      }
      try {
        await api.call('answerElicitation', { conversationId: selection.conversationId, requestId, action, ...(content ? { content } : {}) });
        return true;
      } catch (error) {
        get().showError(error);
        return false;
      }
    },
  };
};
