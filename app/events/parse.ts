/** Validation of transcript events at every boundary: drafts before storing, envelopes when read. */
import {
  envelopeSchema,
  payloadSchemas,
  type Envelope,
  type EventDraft,
  type EventType,
  type TranscriptEvent,
  type UnknownEvent,
} from './schemas.js';

/** True when `type` is one this build understands. */
export function isKnownEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(payloadSchemas, type);
}

/** Validates a draft before it is stored; throws a zod error naming the bad field. */
export function parseDraft(draft: { type: string; payload: unknown }): EventDraft {
  if (!isKnownEventType(draft.type)) {
    throw new Error(`Unknown event type "${draft.type}"`);
  }
  const payload = payloadSchemas[draft.type].parse(draft.payload);
  return { type: draft.type, payload } as EventDraft;
}

/** Result of reading one envelope back. */
export type ParsedEvent = { ok: true; event: TranscriptEvent | UnknownEvent } | { ok: false; reason: string };

/**
 * Reads an envelope. A type from a newer build comes back as an {@link UnknownEvent} so it is
 * kept and skipped; a known type with a broken payload is reported, not guessed at.
 */
export function parseEnvelope(raw: unknown): ParsedEvent {
  if (!isEnvelope(raw)) {
    // Only a bad envelope pays for the schema, which says what is wrong with it.
    const envelope = envelopeSchema.safeParse(raw);
    return {
      ok: false,
      reason: envelope.success
        ? 'not an envelope'
        : envelope.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
    };
  }
  // Every stored event is read through here: the event is built field by field (no rest or spread).
  const { conversationId, seq, at, v, type, payload } = raw;
  if (!isKnownEventType(type) || v > EVENT_VERSION_SUPPORTED) {
    return { ok: true, event: { conversationId, seq, at, v, type, payload, unknown: true } };
  }
  const parsed = payloadSchemas[type].safeParse(payload);
  if (!parsed.success) {
    return { ok: false, reason: `${type}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}` };
  }
  return { ok: true, event: { conversationId, seq, at, v, type, payload: parsed.data } as TranscriptEvent };
}

/**
 * True when `raw` is an envelope: exactly what {@link envelopeSchema} accepts, checked by hand
 * (the schema costs several times more, and every stored event is read through here).
 */
function isEnvelope(raw: unknown): raw is Envelope {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return false;
  }
  const { conversationId, seq, at, v, type } = raw as Record<string, unknown>;
  return (
    typeof conversationId === 'string' &&
    conversationId.length > 0 &&
    positiveInteger(seq) &&
    typeof at === 'string' &&
    positiveInteger(v) &&
    typeof type === 'string' &&
    type.length > 0
  );
}

function positiveInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/** Highest envelope version this build can read. */
const EVENT_VERSION_SUPPORTED = 1;

/** True when the event is one this build cannot reduce. */
export function isUnknownEvent(event: TranscriptEvent | UnknownEvent): event is UnknownEvent {
  return 'unknown' in event;
}
