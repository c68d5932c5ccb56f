/**
 * Applies envelopes to a transcript in sequence order, whichever order they arrive in (a fetched
 * history and pushed events can interleave). Events after a gap wait until the gap is filled.
 */
import { parseEnvelope, type Envelope, type TranscriptEvent, type UnknownEvent } from '../../app/events/index.js';
import {
  emptyTranscript,
  reduceAll,
  startFold,
  tailTranscript,
  type ConversationContext,
  type TranscriptState,
} from '../../app/transcript/index.js';

/**
 * A transcript (possibly only its tail, from `firstSeq`) plus the events that arrived ahead of a
 * gap, and the events folded into it (parsed once): reading earlier turns folds them again after
 * the earlier ones, without reading or parsing them again.
 */
export type BufferedTranscript = { state: TranscriptState; waiting: ReadonlyMap<number, Envelope>; firstSeq: number; held: Held };

/**
 * The events folded since `firstSeq`, in order: the first `count` of `list`. Appending shares
 * `list` when nothing was appended past `count` (a transcript streaming into it adds a few events
 * a frame, never copying the thread); otherwise it copies first.
 */
type Held = { readonly list: Array<TranscriptEvent | UnknownEvent>; readonly count: number };

function appendHeld(held: Held, events: ReadonlyArray<TranscriptEvent | UnknownEvent>): Held {
  if (events.length === 0) {
    return held;
  }
  const list = held.list.length === held.count ? held.list : held.list.slice(0, held.count);
  list.push(...events);
  return { list, count: list.length };
}

const NOTHING_HELD = (): Held => ({ list: [], count: 0 });

/** An empty buffered transcript. */
export function emptyBuffered(conversationId: string): BufferedTranscript {
  return { state: emptyTranscript(conversationId), waiting: new Map(), firstSeq: 1, held: NOTHING_HELD() };
}

/** A transcript read from `firstSeq` on (what the beginning it skips established comes from the conversation's context). */
export function bufferedTail(context: ConversationContext, firstSeq: number, envelopes: readonly Envelope[]): BufferedTranscript {
  return applyEnvelopes({ state: tailTranscript(context, firstSeq), waiting: new Map(), firstSeq, held: NOTHING_HELD() }, envelopes);
}

/** Folds in `envelopes`; returns the same object when nothing changed. */
export function applyEnvelopes(buffered: BufferedTranscript, envelopes: readonly Envelope[]): BufferedTranscript {
  const waiting = new Map(buffered.waiting);
  let changed = false;
  for (const envelope of envelopes) {
    if (envelope.seq > buffered.state.lastSeq && !waiting.has(envelope.seq)) {
      waiting.set(envelope.seq, envelope);
      changed = true;
    }
  }
  if (!changed) {
    return buffered;
  }
  const ready: Array<TranscriptEvent | UnknownEvent> = [];
  for (let next = waiting.get(buffered.state.lastSeq + 1); next; next = waiting.get(next.seq + 1)) {
    waiting.delete(next.seq);
    const parsed = parseEnvelope(next);
    // An event this build cannot read is skipped like an unknown one, so later events still show.
    ready.push(parsed.ok ? parsed.event : { ...next, unknown: true });
  }
  return { state: reduceAll(buffered.state, ready), waiting, firstSeq: buffered.firstSeq, held: appendHeld(buffered.held, ready) };
}

/** Events folded between two looks at the clock. */
const CHECK_EVERY = 50;

/** How long a slice waits for a frame before it goes on without one (an occluded window may draw none). */
const NO_FRAME_MS = 50;

/**
 * Gives the window its turn to paint and comes back: after the next animation frame (a task after
 * it, once it is drawn). Yielding a task alone is not enough: while tasks keep coming, Chromium
 * draws a frame only every 100 ms or so. A hidden window draws no frames: it yields a task
 * (`scheduler.yield` where the browser has it: nested timeouts wait at least 4 ms each), and a
 * frame that does not come is waited for at most `NO_FRAME_MS`.
 */
const nextFrame = (): Promise<void> => {
  if (typeof requestAnimationFrame !== 'function' || globalThis.document?.visibilityState === 'hidden') {
    const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
    return scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0));
  }
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, NO_FRAME_MS);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
};

/** One fold, done in slices of about `budgetMs` with `pause` in between, so no task runs long. */
function slicedFold(from: TranscriptState, pause: () => Promise<void>, budgetMs: number) {
  const fold = startFold(from);
  const added: Array<TranscriptEvent | UnknownEvent> = [];
  let began = performance.now();
  return {
    added,
    /** Folds one event; returns the pause to wait for when the slice's time is up. */
    add(event: TranscriptEvent | UnknownEvent): Promise<void> | undefined {
      fold.add(event);
      added.push(event);
      if (added.length % CHECK_EVERY === 0 && performance.now() - began > budgetMs) {
        return pause().then(() => {
          began = performance.now();
        });
      }
      return undefined;
    },
    /**
     * The state folded; a slice more than half used first gives the window its turn, so the
     * render of what was read does not follow it in the same frame.
     */
    async result(): Promise<TranscriptState> {
      if (performance.now() - began > budgetMs / 2) {
        await pause();
      }
      return fold.result();
    },
  };
}

/** An envelope as an event (one this build cannot read is skipped like an unknown one, so later events still show). */
function eventOf(envelope: Envelope): TranscriptEvent | UnknownEvent {
  const parsed = parseEnvelope(envelope);
  return parsed.ok ? parsed.event : { ...envelope, unknown: true };
}

/**
 * `applyEnvelopes` for a long read that comes in pages: one fold over all of it (`startFold`),
 * done in slices of about `budgetMs`, yielding in between (`pause`) so the window keeps painting
 * and no task runs long. The state is put together once, at the end; the result is the same as
 * one `applyEnvelopes` of every page in turn.
 */
export async function readInSlices(
  from: BufferedTranscript,
  pages: AsyncIterable<readonly Envelope[]> | Iterable<readonly Envelope[]>,
  pause: () => Promise<void> = nextFrame,
  budgetMs = 12,
): Promise<BufferedTranscript> {
  const waiting = new Map(from.waiting);
  const fold = slicedFold(from.state, pause, budgetMs);
  let lastSeq = from.state.lastSeq;
  for await (const envelopes of pages) {
    for (const envelope of envelopes) {
      if (envelope.seq > lastSeq && !waiting.has(envelope.seq)) {
        waiting.set(envelope.seq, envelope);
      }
    }
    for (let next = waiting.get(lastSeq + 1); next; next = waiting.get(lastSeq + 1)) {
      waiting.delete(next.seq);
      lastSeq = next.seq;
      const pausing = fold.add(eventOf(next));
      if (pausing) {
        await pausing;
      }
    }
  }
  return { state: await fold.result(), waiting, firstSeq: from.firstSeq, held: appendHeld(from.held, fold.added) };
}

/**
 * Earlier turns of a transcript read from `later.firstSeq`: the transcript from `firstSeq` on, the
 * pages read from there up to `later.firstSeq` (what they hold from there on is not needed) and
 * then the events `later` holds, folded again without being read or parsed again. Sliced like
 * `readInSlices`; the events still waiting for a gap stay waiting.
 */
export async function readEarlierInSlices(
  context: ConversationContext,
  firstSeq: number,
  pages: AsyncIterable<readonly Envelope[]> | Iterable<readonly Envelope[]>,
  later: BufferedTranscript,
  pause: () => Promise<void> = nextFrame,
  budgetMs = 12,
): Promise<BufferedTranscript> {
  const fold = slicedFold(tailTranscript(context, firstSeq), pause, budgetMs);
  let expected = firstSeq;
  for await (const envelopes of pages) {
    for (const envelope of envelopes) {
      if (envelope.seq === expected && envelope.seq < later.firstSeq) {
        expected += 1;
        const pausing = fold.add(eventOf(envelope));
        if (pausing) {
          await pausing;
        }
      }
    }
    if (expected >= later.firstSeq) {
      break;
    }
  }
  if (expected !== later.firstSeq) {
    throw new Error(`The earlier part of the conversation came incomplete (events ${expected} to ${later.firstSeq - 1} are missing).`);
  }
  for (let index = 0; index < later.held.count; index += 1) {
    const pausing = fold.add(later.held.list[index]!);
    if (pausing) {
      await pausing;
    }
  }
  return { state: await fold.result(), waiting: later.waiting, firstSeq, held: { list: fold.added, count: fold.added.length } };
}
