/**
 * The open conversation's transcript: reading it in pages when it opens (and earlier turns on
 * request), applying pushed events and summaries once per animation frame, and the person's
 * answers to what a running turn asks (Stop, permissions, forms).
 */
import { NotFoundError } from '../../../app/errors.js';
import { showInAddress } from '../../persisted/address.js';
import { writePreference } from '../../persisted/preferences.js';

/** The preference that names the conversation open last. */
export const LAST_CONVERSATION = 'baton.lastConversation';
import { applyEnvelopes, bufferedTail, readEarlierInSlices, readInSlices } from '../transcriptBuffer.js';
import type { Selection, Slice } from '../types.js';
import type { ElicitationValue } from '../../../app/agents/elicitation.js';
import type { Envelope } from '../../../app/events/index.js';
import type { Result } from '../../../app/ipc/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import type { BufferedTranscript } from '../transcriptBuffer.js';

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
  /**
   * Opens a conversation and reads it. `again`: the one shown is read again (after a start or a
   * reconnect), which is not the person choosing it, so what they opened meanwhile (Settings, the
   * list on a narrow window) stays open.
   */
  select(conversationId: string, focusSeq?: number, options?: { again?: boolean }): Promise<void>;
  /**
   * Reads earlier turns of the open conversation: twice as many as shown, or `all` of them. Only
   * the earlier events are read; those already read are folded again after them. One read at a time.
   */
  showEarlier(options?: { all?: boolean }): Promise<void>;
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

/** Turns read when a conversation opens; "Show earlier" doubles it. */
const TURNS_PER_PAGE = 50;
/**
 * Events per answer of the read that opens a conversation. An answer is received and checked in one
 * task (see below), but the first paint waits for each answer in turn, so fewer round trips win here.
 */
const EVENTS_PER_PAGE = 1_500;
/**
 * Events per answer of a read of earlier turns (the next one asked for while one is folded). The
 * answer is received and checked in one task: one of 2,000 took 16–67 ms, a long frame on its own.
 */
const EARLIER_EVENTS_PER_PAGE = 500;
/** Turns asked for to read a conversation from its start (the request's limit). */
const ALL_TURNS = 1_000_000;

/** The transcripts slice. */
export const transcriptsSlice: Slice<TranscriptsSlice> = (api) => (set, get) => {
  // Events pushed while a transcript is being read; applied once the read arrives.
  const arrivedDuringRead = new Map<string, Envelope[]>();
  // Conversations whose every earlier turn was asked for while a read of some was under way.
  const allAfterRead = new Set<string>();
  // Reads of earlier turns under way (each with the read of every turn that may follow it).
  const readsEarlier = new Map<string, Promise<void>>();
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
  const schedule = (): void => {
    if (frame === undefined) {
      frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame(flush) : setTimeout(flush, 16);
    }
  };

  const load = async (conversationId: string, aroundSeq?: number, options: { shownBeside?: boolean } = {}): Promise<void> => {
    arrivedDuringRead.set(conversationId, []);
    try {
      const turns = get().turnsShown[conversationId] ?? TURNS_PER_PAGE;
      const { events, conversation, firstSeq, nextSeq, context } = await api.call('openConversation', {
        conversationId,
        turns,
        maxEvents: EVENTS_PER_PAGE,
        ...(aroundSeq === undefined ? {} : { aroundSeq }),
      });
      // A long read comes in pages, so that no one message takes a long task to receive and check.
      async function* pages(): AsyncGenerator<readonly Envelope[]> {
        yield events;
        for (let next = nextSeq; next !== null;) {
          const page = await api.call('readConversationEvents', { conversationId, fromSeq: next, limit: EVENTS_PER_PAGE });
          yield page.events;
          next = page.nextSeq;
        }
      }
      const read = await readInSlices(bufferedTail(context, firstSeq, []), pages());
      const buffered = applyEnvelopes(read, arrivedDuringRead.get(conversationId) ?? []);
      set((state) => ({ transcripts: { ...state.transcripts, [conversationId]: buffered } }));
      if (!options.shownBeside) {
        get().upsertSummary(conversation);
      }
    } catch (error) {
      const { selection } = get();
      // A conversation that is gone (named by an old address): a new one opens instead, and the error says why.
      if (error instanceof NotFoundError && selection.kind === 'conversation' && selection.conversationId === conversationId) {
        get().newConversation();
      }
      get().showError(error);
    } finally {
      arrivedDuringRead.delete(conversationId);
    }
  };
  /** Reads the turns before those `held` starts with, up to `turns` from the end, and folds them in before. */
  const loadEarlier = async (conversationId: string, turns: number, held: BufferedTranscript): Promise<void> => {
    arrivedDuringRead.set(conversationId, []);
    try {
      const before = held.firstSeq;
      const { events, firstSeq, nextSeq, context } = await api.call('openConversation', {
        conversationId,
        turns,
        maxEvents: EARLIER_EVENTS_PER_PAGE,
        aroundSeq: before,
      });
      if (firstSeq >= before) {
        return;
      }
      // Only what comes before the events already read; each page asked for while the one before is folded.
      const ask = (fromSeq: number | null) => {
        if (fromSeq === null || fromSeq >= before) {
          return undefined;
        }
        const page = api.call('readConversationEvents', {
          conversationId,
          fromSeq,
          limit: Math.min(EARLIER_EVENTS_PER_PAGE, before - fromSeq),
        });
        // A page asked for ahead and never waited for (the read ended first) fails unheard.
        page.catch(() => undefined);
        return page;
      };
      async function* pages(): AsyncGenerator<readonly Envelope[]> {
        let coming = ask(nextSeq);
        yield events;
        while (coming) {
          const page = await coming;
          coming = ask(page.nextSeq);
          yield page.events;
        }
      }
      // The transcript as it is now (events pushed since it was read included): another read that replaced it wins.
      const later = get().transcripts[conversationId];
      if (later?.firstSeq !== before) {
        return;
      }
      const read = await readEarlierInSlices(context, firstSeq, pages(), later);
      const buffered = applyEnvelopes(read, arrivedDuringRead.get(conversationId) ?? []);
      set((state) => ({ transcripts: { ...state.transcripts, [conversationId]: buffered } }));
    } catch (error) {
      get().showError(error);
    } finally {
      arrivedDuringRead.delete(conversationId);
    }
    if (allAfterRead.delete(conversationId)) {
      await get().showEarlier({ all: true });
    }
  };
  /** The open conversation's id, if one is open. */
  const openId = (): string | undefined => {
    const { selection } = get();
    return selection.kind === 'conversation' ? selection.conversationId : undefined;
  };

  return {
    transcripts: {},
    turnsShown: {},
    selection: { kind: 'draft' },
    openSummary: null,
    focus: null,
    sidebarOpen: false,
    setSidebarOpen(open) {
      set({ sidebarOpen: open });
    },
    newConversation() {
      // A confirmation belongs to the conversation it was said in.
      set((state) => ({
        selection: { kind: 'draft' },
        openSummary: null,
        focus: null,
        error: null,
        sidebarOpen: false,
        settings: null,
        info: state.selection.kind === 'draft' ? state.info : null,
      }));
      showInAddress(null);
      writePreference(LAST_CONVERSATION, null);
    },
    async select(conversationId, focusSeq, options = {}) {
      set((state) => ({
        selection: { kind: 'conversation', conversationId },
        ...(options.again ? {} : { settings: null, sidebarOpen: false }),
        // Shown at once from the list (or as it was); the read below brings the current one.
        openSummary:
          state.conversations.find((c) => c.conversationId === conversationId) ??
          (state.openSummary?.conversationId === conversationId ? state.openSummary : null),
        focus: focusSeq === undefined ? null : { conversationId, seq: focusSeq },
        error: null,
        importReview: state.importReview?.conversationId === conversationId ? state.importReview : null,
        info: state.selection.kind === 'conversation' && state.selection.conversationId === conversationId ? state.info : null,
      }));
      showInAddress(conversationId);
      // A restart opens it again (the address of a new run names none).
      writePreference(LAST_CONVERSATION, conversationId);
      await load(conversationId, focusSeq);
      await get().checkImport(conversationId);
    },
    async showEarlier(options = {}) {
      const conversationId = openId();
      const held = conversationId === undefined ? undefined : get().transcripts[conversationId];
      if (conversationId === undefined || !held || held.firstSeq <= 1) {
        return;
      }
      // A read under way (scrolling up asks again and again): a read of every earlier turn follows it when asked for.
      if (arrivedDuringRead.has(conversationId)) {
        if (options.all) {
          allAfterRead.add(conversationId);
        }
        // Resolves once the read under way, and the read of every turn that follows it, are shown.
        return readsEarlier.get(conversationId);
      }
      const turns = options.all ? ALL_TURNS : (get().turnsShown[conversationId] ?? TURNS_PER_PAGE) * 2;
      set((state) => ({ turnsShown: { ...state.turnsShown, [conversationId]: turns } }));
      const reading = loadEarlier(conversationId, turns, held).finally(() => readsEarlier.delete(conversationId));
      readsEarlier.set(conversationId, reading);
      await reading;
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
    async cancel() {
      const conversationId = openId();
      if (conversationId !== undefined) {
        await api.call('cancelTurn', { conversationId }).catch((error: unknown) => get().showError(error));
      }
    },
    async watchConversation(conversationId) {
      if (!get().transcripts[conversationId] && !arrivedDuringRead.has(conversationId)) {
        await load(conversationId, undefined, { shownBeside: true });
      }
    },
    async answerPermission(requestId, optionId, scoped) {
      const conversationId = scoped ?? openId();
      if (conversationId !== undefined) {
        await api.call('answerPermission', { conversationId, requestId, optionId }).catch((error: unknown) => get().showError(error));
      }
    },
    async fetchTurnChanges(turnId, scoped) {
      const conversationId = scoped ?? openId();
      if (conversationId === undefined) {
        return { changes: [], sinceLastTurn: [], approximate: false, unavailable: 'No conversation is open.' };
      }
      try {
        return await api.call('listTurnChanges', { conversationId, turnId });
      } catch (error) {
        return { changes: [], sinceLastTurn: [], approximate: false, unavailable: error instanceof Error ? error.message : String(error) };
      }
    },
    async answerElicitation(requestId, action, content, scoped) {
      const conversationId = scoped ?? openId();
      if (conversationId === undefined) {
        return false;
      }
      try {
        await api.call('answerElicitation', { conversationId, requestId, action, ...(content ? { content } : {}) });
        return true;
      } catch (error) {
        get().showError(error);
        return false;
      }
    },
  };
};
