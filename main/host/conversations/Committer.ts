/**
 * The only path from producers to the store and on to windows. Streamed chunks are grouped for
 * up to a short window and committed in one transaction; anything else flushes what is waiting
 * and commits at once, so order is kept. Nothing is pushed before it is committed.
 */
import { ConcurrencyError } from '../../../app/errors.js';
import type { EventDraft } from '../../../app/events/index.js';
import type { PushEvent } from '../../../app/ipc/index.js';
import type { AppendResult, EventStore } from '../store/EventStore.js';

/** Event types worth grouping: they arrive many per second while a reply streams. */
const BATCHABLE = new Set<EventDraft['type']>(['message.chunk', 'thought.chunk']);
const BATCH_WINDOW_MS = 10;

/** Commits and pushes events. */
export class Committer {
  private readonly lastSeq = new Map<string, number>();
  private readonly waiting = new Map<string, { drafts: EventDraft[]; timer: NodeJS.Timeout }>();

  constructor(
    private readonly store: EventStore,
    private readonly emit: (event: PushEvent) => void,
    /** Called when a grouped commit fails (the caller decides what that means for the turn). */
    private readonly onBatchFailure: (conversationId: string, error: unknown) => void,
  ) {}

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
    const timer = setTimeout(() => {
      try {
        this.flush(conversationId);
      } catch (error) {
        this.onBatchFailure(conversationId, error);
      }
    }, BATCH_WINDOW_MS);
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
  }

  /** Pushes an event that is not part of a transcript. */
  push(event: PushEvent): void {
    this.emit(event);
  }

  private append(conversationId: string, drafts: EventDraft[], expectedSeq?: number): AppendResult {
    const expected = expectedSeq ?? this.lastSeq.get(conversationId) ?? this.store.getSummary(conversationId).lastSeq;
    let result: AppendResult;
    try {
      result = this.store.append(conversationId, expected, drafts);
    } catch (error) {
      if (error instanceof ConcurrencyError) {
        this.lastSeq.delete(conversationId);
      }
      throw error;
    }
    this.lastSeq.set(conversationId, result.summary.lastSeq);
    for (const event of result.events) {
      this.emit({ name: 'transcript', payload: { event } });
    }
    this.emit({ name: 'conversationChanged', payload: { conversation: result.summary } });
    return result;
  }
}
