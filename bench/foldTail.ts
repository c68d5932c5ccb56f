/** What a window does with an opened page: fold the envelopes with the shared reducer, from the page's first seq. */
import { parseEnvelope, type Envelope } from '../app/events/index.js';
import { reduceAll, tailTranscript, type ConversationContext, type TranscriptState } from '../app/transcript/index.js';

/** Folds a page of a transcript the way the renderer does. */
export function applyEnvelopesForBench(context: ConversationContext, firstSeq: number, envelopes: readonly Envelope[]): TranscriptState {
  const events = envelopes.flatMap((envelope) => {
    const parsed = parseEnvelope(envelope);
    return parsed.ok ? [parsed.event] : [];
  });
  return reduceAll(tailTranscript(context, firstSeq), events);
}
