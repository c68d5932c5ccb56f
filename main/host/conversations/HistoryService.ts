/**
 * What a person does with the history: rename, archive, delete (a tombstone, with undo),
 * restore, erase for good, export and import. Every change but erasing is an event.
 */
import { InvalidRequestError } from '../../../app/errors.js';
import type { Envelope, EventDraft, EventPayload } from '../../../app/events/index.js';
import { newId } from '../../../app/ids.js';
import { emptyTranscript, interruptUnfinished, reduceAll } from '../../../app/transcript/index.js';
import { exportFileName, readJsonl, toJsonl, toMarkdown, type JsonlRecord } from '../../../app/transcript/exportFormats.js';
import { openAttempts } from '../../../app/transcript/attempts.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import type { EventStore } from '../store/EventStore.js';
import type { ListCursor } from '../store/queries.js';
import type { Committer } from './Committer.js';
import type { ImportReview } from './ImportReview.js';
import type { Turns } from './Turns.js';

/** An exported file. */
export type ExportedFile = { fileName: string; mimeType: string; content: string };

/** The history operations. */
export class HistoryService {
  constructor(
    private readonly store: EventStore,
    private readonly committer: Committer,
    private readonly turns: Pick<Turns, 'release'>,
    private readonly importReview: ImportReview,
    /** Deletes one of an agent's own sessions, where the agent offers it (no-op otherwise). */
    private readonly deleteAgentSession?: (agentId: string, sessionId: string) => Promise<void>,
    private readonly log: (message: string) => void = () => {},
    /** Removes checkpoints of the working folder (and the contents only they use). */
    private readonly removeCheckpoints?: (checkpointIds: readonly string[]) => void,
    /** Before a conversation is erased: what goes with it (its attempts and their copies). */
    private readonly beforePurge?: (conversationId: string) => Promise<void>,
  ) {}

  rename(conversationId: string, title: string): ConversationSummary {
    return this.record(conversationId, [{ type: 'conversation.renamed', payload: { title: title.trim() } }]);
  }

  setArchived(conversationId: string, archived: boolean): ConversationSummary {
    const summary = this.store.getSummary(conversationId);
    if (summary.lifecycle === 'deleted') {
      throw new InvalidRequestError('This conversation is in the trash; restore it first.');
    }
    if ((summary.lifecycle === 'archived') === archived) {
      return summary;
    }
    return this.record(conversationId, [{ type: archived ? 'conversation.archived' : 'conversation.unarchived', payload: {} }]);
  }

  /** Moves a conversation to the trash; a running reply is stopped first. */
  async delete(conversationId: string): Promise<ConversationSummary> {
    const summary = this.store.getSummary(conversationId);
    if (summary.lifecycle === 'deleted') {
      return summary;
    }
    await this.turns.release(conversationId);
    return this.record(conversationId, [{ type: 'conversation.deleted', payload: {} }]);
  }

  restore(conversationId: string): ConversationSummary {
    const summary = this.store.getSummary(conversationId);
    return summary.lifecycle === 'deleted' ? this.record(conversationId, [{ type: 'conversation.restored', payload: {} }]) : summary;
  }

  /**
   * Erases a conversation in the trash: its events and everything derived from them, and the
   * agent sessions Baton created for it where the agent offers `session/delete` (not sessions an
   * import named: those were made elsewhere), and its checkpoints. An agent that cannot be reached
   * is logged; the conversation is erased all the same.
   */
  async purge(conversationId: string): Promise<void> {
    await this.turns.release(conversationId);
    await this.beforePurge?.(conversationId);
    this.committer.flush(conversationId);
    const sessions = Object.entries(this.store.getContext(conversationId).sessions).filter(
      ([, session]) => !this.importReview.isImportedSession(conversationId, session.sessionId),
    );
    for (const [agentId, { sessionId }] of sessions) {
      await this.deleteAgentSession?.(agentId, sessionId).catch((error: unknown) =>
        this.log(`could not delete ${agentId}'s session ${sessionId}: ${String(error)}`),
      );
    }
    // Its checkpoints are its own (taken around its turns): they go with it, and contents no other checkpoint uses.
    const checkpointIds = this.store
      .readEvents(conversationId)
      .events.flatMap((event) =>
        (event.type === 'checkpoint.taken' || event.type === 'conversation.rewound') && event.payload.checkpointId
          ? [event.payload.checkpointId]
          : [],
      );
    this.store.purge(conversationId);
    this.removeCheckpoints?.(checkpointIds);
    this.committer.forget(conversationId);
    this.committer.push({ name: 'conversationRemoved', payload: { conversationId } });
  }

  /**
   * The conversation as a file; its attempts (each its own conversation) go with it: in the JSONL after its own lines, in Markdown under
   * their message.
   */
  export(conversationId: string, format: 'markdown' | 'jsonl'): ExportedFile {
    this.committer.flush(conversationId);
    const summary = this.store.getSummary(conversationId);
    const envelopes = this.store.readEnvelopes(conversationId);
    const attempts = this.attemptsOf(envelopes);
    return format === 'jsonl'
      ? {
          fileName: exportFileName(summary, 'jsonl'),
          mimeType: 'application/x-ndjson',
          content: toJsonl([...envelopes, ...[...attempts.values()].flat()]),
        }
      : { fileName: exportFileName(summary, 'md'), mimeType: 'text/markdown', content: toMarkdown(summary, envelopes, attempts) };
  }

  /** The stored events of the attempts a conversation asked (those still stored), by conversation. */
  private attemptsOf(envelopes: readonly Envelope[]): Map<string, Envelope[]> {
    const attempts = new Map<string, Envelope[]>();
    for (const envelope of envelopes) {
      if (envelope.type !== 'attempts.started') {
        continue;
      }
      for (const { conversationId } of (envelope.payload as EventPayload<'attempts.started'>).attempts) {
        try {
          this.committer.flush(conversationId);
          attempts.set(conversationId, this.store.readEnvelopes(conversationId));
        } catch {
          // Never created (its copy failed), or erased: nothing to carry.
        }
      }
    }
    return attempts;
  }

  /** Every conversation not in the trash (recent and archived), newest first, as one Markdown document. */
  exportAll(): ExportedFile & { count: number } {
    const summaries: ConversationSummary[] = [];
    for (const lifecycle of ['active', 'archived'] as const) {
      let before: ListCursor | undefined;
      do {
        const page = this.store.listSummaries({ lifecycle, ...(before ? { before } : {}) });
        summaries.push(...page.conversations);
        before = page.nextCursor ?? undefined;
      } while (before);
    }
    summaries.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const parts = summaries.map((summary) => {
      this.committer.flush(summary.conversationId);
      return toMarkdown(summary, this.store.readEnvelopes(summary.conversationId));
    });
    const day = new Date().toISOString().slice(0, 10);
    return {
      fileName: `baton-conversations-${day}.md`,
      mimeType: 'text/markdown',
      content: parts.join('\n\n---\n\n'),
      count: summaries.length,
    };
  }

  /** Stores a JSONL export as a new conversation titled "<title> (imported)"; a reply that was unfinished in it is marked interrupted. */
  import(content: string): ConversationSummary {
    const conversationId = newId();
    // The file's first conversation is the one imported; the lines of others are its attempts, each
    // stored as a conversation of its own under a new id, the references between them made anew.
    const ids = new Map<string, string>();
    const idFor = (old: string): string => ids.get(old) ?? ids.set(old, newId()).get(old)!;
    const known = (old: string): string => ids.get(old) ?? old;
    const attempts = new Map<string, JsonlRecord[]>();
    let first: string | undefined;
    const own = function* (): Generator<JsonlRecord> {
      for (const record of readJsonl(content)) {
        first ??= record.envelope.conversationId;
        ids.set(first, conversationId);
        if (record.envelope.conversationId === first) {
          yield relinked(record, idFor, known);
        } else {
          const list = attempts.get(record.envelope.conversationId) ?? [];
          list.push(record);
          attempts.set(record.envelope.conversationId, list);
        }
      }
    };
    // Opened first: its messages are indexed for search a moment later (or by the first search).
    let summary = this.store.importRecords(conversationId, own(), { search: 'later' });
    for (const [old, records] of attempts) {
      this.store.importRecords(
        idFor(old),
        records.map((record) => relinked(record, idFor, known)),
        { search: 'later' },
      );
    }
    // Its attempts' copies are not on this machine: they can be read, and continued from a checkpoint where one is here, never kept.
    const open = openAttempts(reduceAll(emptyTranscript(conversationId), this.store.readEvents(conversationId).events));
    if (open.length > 0) {
      this.record(
        conversationId,
        open.map((item) => ({ type: 'attempts.removed' as const, payload: { attemptsId: item.attemptsId, failed: [] } })),
      );
    }
    // Shown as it was, but nothing of it reaches an agent until the person confirms it.
    this.importReview.begin(conversationId);
    // Only a transcript that ends mid-turn needs folding (to close what was left open): most end between turns.
    const closing = summary.running
      ? interruptUnfinished(reduceAll(emptyTranscript(conversationId), this.store.readEvents(conversationId).events))
      : [];
    // The copy says what it is in the list, beside the conversation it may have come from.
    const title = summary.title.trim() === '' ? 'Imported conversation' : `${summary.title} (imported)`;
    summary = this.record(conversationId, [...closing, { type: 'conversation.renamed', payload: { title } }]);
    return summary;
  }

  private record(conversationId: string, drafts: EventDraft[]): ConversationSummary {
    return this.committer.commit(conversationId, drafts).summary;
  }
}

/** A record of an imported file with the conversations it names given their new ids (an attempt's, the one that asked it). */
function relinked(record: JsonlRecord, idFor: (old: string) => string, known: (old: string) => string = (old) => old): JsonlRecord {
  const payload = record.envelope.payload as Record<string, unknown>;
  let changed: Record<string, unknown> | undefined;
  switch (record.envelope.type) {
    case 'attempts.started':
      changed = {
        ...payload,
        attempts: (payload.attempts as Array<{ conversationId: string }>).map((attempt) => ({
          ...attempt,
          conversationId: idFor(attempt.conversationId),
        })),
      };
      break;
    case 'attempt.continued':
      changed = { ...payload, conversationId: idFor(payload.conversationId as string) };
      break;
    case 'conversation.attempt':
      changed = { ...payload, ofConversationId: idFor(payload.ofConversationId as string) };
      break;
    case 'conversation.branched':
      // Only a branch the file carries (an attempt continued) points at its new id; others keep theirs.
      changed =
        record.envelope.conversationId === (payload.fromConversationId as string)
          ? payload
          : { ...payload, fromConversationId: known(payload.fromConversationId as string) };
      break;
    default:
      return record;
  }
  return { envelope: { ...record.envelope, payload: changed }, event: { ...record.event, payload: changed } as JsonlRecord['event'] };
}
