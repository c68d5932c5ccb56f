/**
 * The read model of "Ask several agents": for each conversation that asked, its asks (one attempt
 * set per message) with each attempt's agent, machine, copy, branch, state and `continuedAs`. It
 * is read from the conversation's log once, the first time it is asked about, and kept up to date
 * from then on from what the committer commits (`Committer.observe`); an erased conversation is
 * forgotten. Keep, continue, compare, set aside, erase and recover ask it instead of reading and
 * reducing the log again. The copies' bookkeeping (`owner.json`) is written through it only
 * (`copies`), and it reads an attempt's own turns from its conversation.
 */
import { NotFoundError } from '../../../app/errors.js';
import type { TranscriptEvent } from '../../../app/events/index.js';
import { foldAttempts, isAttemptsEvent, openAttempts } from '../../../app/transcript/attempts.js';
import { emptyTranscript, reduceAll, type AttemptView, type TranscriptItem, type TranscriptState } from '../../../app/transcript/index.js';
import type { CommitObserver, Committer } from '../conversations/Committer.js';
import { LOCAL_MACHINE_ID } from '../machine/Machine.js';
import type { EventStore } from '../store/EventStore.js';
import { AttemptCopies, type AttemptCopiesDeps } from './AttemptCopies.js';

/** One ask of several agents: the message, its attempts, which one was kept, whether the copies are gone. */
export type AttemptSet = Extract<TranscriptItem, { kind: 'attempts' }>;

/** Where a conversation works: its folder and the machine it is on (the machine its attempts' copies are made on). */
export type AttemptsPlace = { conversationId: string; cwd: string; machine: string };

/** One attempt with its ask and where the conversation that asked works. */
export type AttemptChoiceOf = { place: AttemptsPlace; set: AttemptSet; attempt: AttemptView };

/** Whether a conversation may ask several agents: open, in the trash, or itself one attempt of several (not continued). */
export type Standing = 'open' | 'deleted' | 'attempt';

/**
 * What the model knows of one conversation: where it works, its standing (as its summary's
 * lifecycle says it), and a state only its attempts events were folded into.
 */
type Known = { place: AttemptsPlace | undefined; standing: Standing; state: TranscriptState };

export type AttemptSetsDeps = AttemptCopiesDeps & {
  store: Pick<EventStore, 'readEvents' | 'getSummary'>;
  committer: Pick<Committer, 'observe' | 'flush'>;
};

/** The attempt sets of every conversation asked about, kept from their events. */
export class AttemptSets implements CommitObserver {
  /** The copies' bookkeeping: the only writer of owner files. */
  readonly copies: AttemptCopies;
  /** By conversation. */
  private readonly known = new Map<string, Known>();

  constructor(private readonly deps: AttemptSetsDeps) {
    this.copies = new AttemptCopies(deps);
    deps.committer.observe(this);
  }

  committed(conversationId: string, events: readonly TranscriptEvent[]): void {
    // Every commit passes here (streamed chunks too): most change nothing the model holds.
    const known = this.known.get(conversationId);
    const next = known && fold(known, events);
    if (next && next !== known) {
      this.known.set(conversationId, next);
    }
  }

  forgotten(conversationId: string): void {
    this.known.delete(conversationId);
  }

  /** The asks of a conversation, oldest first (none for an id with no log). */
  of(conversationId: string): readonly AttemptSet[] {
    return this.knownOf(conversationId).state.items as AttemptSet[];
  }

  /** Where the conversation that would ask works, its standing, and its asks still open (none kept, copies not removed). */
  asking(conversationId: string): { place: AttemptsPlace; standing: Standing; open: AttemptSet[] } {
    const { place, standing, state } = this.knownOf(conversationId);
    if (!place) {
      throw new NotFoundError('conversation', conversationId);
    }
    return { place, standing, open: openAttempts({ items: [...(state.items as AttemptSet[])] }) };
  }

  /** The asking conversation, one ask of it and one attempt (its first when `attemptId` is not given); NotFound otherwise. */
  choice(conversationId: string, attemptsId: string, attemptId?: string): AttemptChoiceOf {
    const found = this.find(conversationId, attemptsId, attemptId);
    const { place } = this.knownOf(conversationId);
    if (!place) {
      throw new NotFoundError('conversation', conversationId);
    }
    return { place, ...found };
  }

  /** One ask, or undefined when it or its conversation is gone. */
  lookup(conversationId: string, attemptsId: string): AttemptSet | undefined {
    if (!this.exists(conversationId)) {
      return undefined;
    }
    return this.of(conversationId).find((set) => set.attemptsId === attemptsId);
  }

  /** One ask and one attempt of it (its first when `attemptId` is not given); NotFound otherwise. */
  find(conversationId: string, attemptsId: string, attemptId?: string): { set: AttemptSet; attempt: AttemptView } {
    const set = this.of(conversationId).find((candidate) => candidate.attemptsId === attemptsId);
    if (!set) {
      throw new NotFoundError('attempts', attemptsId);
    }
    const attempt = attemptId === undefined ? set.attempts[0] : set.attempts.find((candidate) => candidate.attemptId === attemptId);
    if (!attempt) {
      throw new NotFoundError('attempt', attemptId ?? attemptsId);
    }
    return { set, attempt };
  }

  /** An attempt conversation's own events: after the history it was given. */
  ownEvents(attemptConversationId: string): TranscriptEvent[] {
    return ownPart(this.read(attemptConversationId));
  }

  /** The last checkpoint of an attempt's copy recorded in its conversation. */
  finalCheckpoint(attemptConversationId: string): string | undefined {
    const taken = this.ownEvents(attemptConversationId).findLast(
      (event) => event.type === 'checkpoint.taken' && event.payload.checkpointId !== undefined,
    );
    return taken?.type === 'checkpoint.taken' ? taken.payload.checkpointId : undefined;
  }

  /** The text of the attempt's replies, in order. */
  replyOf(attemptConversationId: string): string {
    const events = this.read(attemptConversationId);
    const own = ownPart(events);
    const state = reduceAll(emptyTranscript(attemptConversationId), events);
    const turnIds = new Set(own.flatMap((event) => (event.type === 'turn.started' ? [event.payload.turnId] : [])));
    return state.items
      .filter((entry) => entry.kind === 'agent' && turnIds.has(entry.turnId))
      .map((entry) => (entry.kind === 'agent' ? entry.text : ''))
      .join('\n\n');
  }

  /** A conversation's events, with what waits for its group commit written first. */
  private read(conversationId: string): TranscriptEvent[] {
    this.deps.committer.flush(conversationId);
    return this.deps.store.readEvents(conversationId).events;
  }

  private knownOf(conversationId: string): Known {
    let known = this.known.get(conversationId);
    if (!known) {
      const { events } = this.deps.store.readEvents(conversationId);
      known = fold({ place: undefined, standing: 'open', state: emptyTranscript(conversationId) }, events);
      if (events.length > 0) {
        // An id with no log yet is not remembered: it is read again once it has one.
        this.known.set(conversationId, known);
      }
    }
    return known;
  }

  /** True when the conversation is in the store. */
  exists(conversationId: string): boolean {
    try {
      this.deps.store.getSummary(conversationId);
      return true;
    } catch {
      return false;
    }
  }
}

/** An attempt conversation's events after the history it was given (its `conversation.attempt` mark says where that ends). */
function ownPart(events: readonly TranscriptEvent[]): TranscriptEvent[] {
  const mark = events.find((event) => event.type === 'conversation.attempt');
  const fromSeq = mark?.type === 'conversation.attempt' ? mark.payload.fromSeq : 0;
  return events.filter((event) => event.seq > fromSeq);
}

/** A conversation's standing after `event`, as its summary's lifecycle goes (`summarize`); undefined when the event leaves it. */
function standingAfter(standing: Standing, event: TranscriptEvent): Standing | undefined {
  switch (event.type) {
    case 'conversation.created':
    case 'conversation.archived':
    case 'conversation.unarchived':
    case 'conversation.restored':
      return 'open';
    case 'conversation.deleted':
      return 'deleted';
    case 'conversation.attempt':
      return 'attempt';
    case 'conversation.branched':
      return standing === 'attempt' ? 'open' : standing;
    default:
      return undefined;
  }
}

/** Folds what of `events` concerns attempts, where the conversation works and its standing into `known` (the same object if none). */
function fold(known: Known, events: readonly TranscriptEvent[]): Known {
  let { place, standing, state } = known;
  let changed = false;
  for (const event of events) {
    if (isAttemptsEvent(event)) {
      state = foldAttempts(state, state, event, `${event.seq}`);
      changed = true;
      continue;
    }
    if (event.type === 'conversation.created') {
      place = { conversationId: event.conversationId, cwd: event.payload.cwd, machine: event.payload.machine ?? LOCAL_MACHINE_ID };
      changed = true;
    }
    const next = standingAfter(standing, event);
    if (next !== undefined && next !== standing) {
      standing = next;
      changed = true;
    }
  }
  return changed ? { place, standing, state } : known;
}
