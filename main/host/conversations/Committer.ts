/**
 * The only path from producers to the store and on to windows. Streamed chunks are grouped and
 * committed in one transaction: a group is committed as soon as what arrived together is in, but
 * at most once per short window per conversation, so a fast stream makes large groups and a slow
 * one waits for nothing. Anything else flushes what is waiting and commits at once, so order is
 * kept. Nothing is pushed before it is committed, and nothing is committed with a known secret
 * in it unless the person typed it (one redaction step, here, for every producer).
 */
import { ConcurrencyError, toWireError } from '../../../app/errors.js';
import type { EventDraft, TranscriptEvent } from '../../../app/events/index.js';
import { redactDrafts } from '../../../app/events/redactDrafts.js';
import type { PushEvent } from '../../../app/ipc/index.js';
import type { AppendResult, EventStore } from '../store/EventStore.js';

/** Event types worth grouping: they arrive many per second while a reply streams. */
const BATCHABLE = new Set<EventDraft['type']>(['message.chunk', 'thought.chunk']);
/** Grouped commits of one conversation are at least this far apart. */
const BATCH_WINDOW_MS = 10;

/** Commits and pushes events. */
export class Committer {
  private readonly lastSeq = new Map<string, number>();
  private readonly waiting = new Map<string, { drafts: EventDraft[]; timer: NodeJS.Timeout }>();
  /** When each conversation's last grouped commit started (performance.now()). */
  private readonly lastGroupAt = new Map<string, number>();
  /** Told when a grouped commit fails (see {@link onBatchFailure}). */
  private readonly batchFailureListeners = new Set<(conversationId: string, error: unknown) => void>();
  /** Told of what was committed and of conversations forgotten (see {@link observe}). */
  private readonly observers = new Set<CommitObserver>();

  constructor(
    private readonly store: EventStore,
    private readonly emit: (event: PushEvent) => void,
    /** The secret values Baton knows: taken out of everything recorded that the person did not type. */
    private readonly secrets: () => readonly string[] = () => [],
  ) {}

  /**
   * Tells `listener` when a grouped commit fails (the turns decide what that means for the turn
   * streaming into it); with no listener, the windows are told. Returns the removal.
   */
  onBatchFailure(listener: (conversationId: string, error: unknown) => void): () => void {
    this.batchFailureListeners.add(listener);
    return () => this.batchFailureListeners.delete(listener);
  }

  /** Tells `observer` of every commit, after the store took it, and of each conversation forgotten. Returns the removal. */
  observe(observer: CommitObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Commits now, in one transaction with anything waiting (which goes first), then pushes. Throws if the store refuses. */
  commit(conversationId: string, drafts: EventDraft[], expectedSeq?: number): AppendResult {
    return this.append(conversationId, [...this.take(conversationId), ...drafts], expectedSeq);
  }

  /** Groups streamed chunks; anything else is committed at once. */
  submit(conversationId: string, drafts: EventDraft[]): void {
    if (!drafts.every((draft) => BATCHABLE.has(draft.type))) {
      this.commit(conversationId, drafts);
      return;
    }
    const entry = this.waiting.get(conversationId);
    if (entry) {
      entry.drafts.push(...drafts);
      return;
    }
    // What arrives in the same read joins the group (a timer runs after the read's callbacks).
    const sinceLast = performance.now() - (this.lastGroupAt.get(conversationId) ?? -Infinity);
    const timer = setTimeout(
      () => {
        this.lastGroupAt.set(conversationId, performance.now());
        try {
          this.flush(conversationId);
        } catch (error) {
          this.batchFailed(conversationId, error);
        }
      },
      Math.max(0, BATCH_WINDOW_MS - sinceLast),
    );
    this.waiting.set(conversationId, { drafts: [...drafts], timer });
  }

  /** Commits what is waiting for a conversation (or all). */
  flush(conversationId?: string): void {
    const ids = conversationId === undefined ? [...this.waiting.keys()] : [conversationId];
    for (const id of ids) {
      const drafts = this.take(id);
      if (drafts.length > 0) {
        this.append(id, drafts);
      }
    }
  }

  /** A grouped commit failed: its listeners are told, or the windows when none listens. */
  private batchFailed(conversationId: string, error: unknown): void {
    if (this.batchFailureListeners.size === 0) {
      this.push({ name: 'hostError', payload: { conversationId, error: toWireError(error) } });
    }
    for (const listener of this.batchFailureListeners) {
      listener(conversationId, error);
    }
  }

  /** Removes and returns what waits for a conversation. */
  private take(conversationId: string): EventDraft[] {
    const entry = this.waiting.get(conversationId);
    if (!entry) {
      return [];
    }
    clearTimeout(entry.timer);
    this.waiting.delete(conversationId);
    return entry.drafts;
  }

  /** Forgets a conversation (after it was erased). */
  forget(conversationId: string): void {
    this.take(conversationId);
    this.lastSeq.delete(conversationId);
    this.lastGroupAt.delete(conversationId);
    for (const observer of this.observers) {
      observer.forgotten(conversationId);
    }
  }

  /** Pushes an event that is not part of a transcript. */
  push(event: PushEvent): void {
    this.emit(event);
  }

  private append(conversationId: string, drafts: EventDraft[], expectedSeq?: number): AppendResult {
    const expected = expectedSeq ?? this.lastSeq.get(conversationId) ?? this.store.getSummary(conversationId).lastSeq;
    let result: AppendResult;
    try {
      result = this.store.append(conversationId, expected, redactDrafts(drafts, this.secrets()));
    } catch (error) {
      if (error instanceof ConcurrencyError) {
        this.lastSeq.delete(conversationId);
      }
      throw error;
    }
    this.lastSeq.set(conversationId, result.summary.lastSeq);
    for (const observer of this.observers) {
      observer.committed(conversationId, result.events);
    }
    if (result.events.length > 0) {
      this.emit({ name: 'transcript', payload: { events: result.events } });
    }
    this.emit({ name: 'conversationChanged', payload: { conversation: result.summary } });
    return result;
  }
}

/** A read model kept up to date from what is committed (see `attempts/AttemptSets.ts`). */
export type CommitObserver = {
  committed(conversationId: string, events: readonly TranscriptEvent[]): void;
  forgotten(conversationId: string): void;
};
