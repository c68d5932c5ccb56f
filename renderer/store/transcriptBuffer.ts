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

/** A transcript (possibly only its tail, from `firstSeq`) plus the events that arrived ahead of a gap. */
export type BufferedTranscript = { state: TranscriptState; waiting: ReadonlyMap<number, Envelope>; firstSeq: number };

/** An empty buffered transcript. */
export function emptyBuffered(conversationId: string): BufferedTranscript {
  return { state: emptyTranscript(conversationId), waiting: new Map(), firstSeq: 1 };
}

/** A transcript read from `firstSeq` on (what the beginning it skips established comes from the conversation's context). */
export function bufferedTail(context: ConversationContext, firstSeq: number, envelopes: readonly Envelope[]): BufferedTranscript {
  return applyEnvelopes({ state: tailTranscript(context, firstSeq), waiting: new Map(), firstSeq }, envelopes);
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
  return { state: reduceAll(buffered.state, ready), waiting, firstSeq: buffered.firstSeq };
}

/** Events folded between two looks at the clock. */
const CHECK_EVERY = 50;

/**
 * `applyEnvelopes` for a long read that comes in pages: one fold over all of it (`startFold`),
 * done in slices of about `budgetMs`, yielding in between (`pause`) so the window keeps painting
 * and no task runs long. The state is put together once, at the end; the result is the same as
 * one `applyEnvelopes` of every page in turn.
 */
export async function readInSlices(
  from: BufferedTranscript,
  pages: AsyncIterable<readonly Envelope[]> | Iterable<readonly Envelope[]>,
  pause: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 0)),
  budgetMs = 8,
): Promise<BufferedTranscript> {
  const waiting = new Map(from.waiting);
  const fold = startFold(from.state);
  let lastSeq = from.state.lastSeq;
  let folded = 0;
  let began = performance.now();
  for await (const envelopes of pages) {
    for (const envelope of envelopes) {
      if (envelope.seq > lastSeq && !waiting.has(envelope.seq)) {
        waiting.set(envelope.seq, envelope);
      }
    }
    for (let next = waiting.get(lastSeq + 1); next; next = waiting.get(lastSeq + 1)) {
      waiting.delete(next.seq);
      const parsed = parseEnvelope(next);
      // An event this build cannot read is skipped like an unknown one, so later events still show.
      fold.add(parsed.ok ? parsed.event : { ...next, unknown: true });
      lastSeq = next.seq;
      folded += 1;
      if (folded % CHECK_EVERY === 0 && performance.now() - began > budgetMs) {
        await pause();
        began = performance.now();
      }
    }
  }
  return { state: fold.result(), waiting, firstSeq: from.firstSeq };
}
