/** Validation of transcript events at every boundary: drafts before storing, envelopes when read. */
import { envelopeSchema, payloadSchemas, type EventDraft, type EventType, type TranscriptEvent, type UnknownEvent } from './schemas.js';

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
export type ParsedEvent =
  | { ok: true; event: TranscriptEvent | UnknownEvent }
  | { ok: false; reason: string };

/**
 * Reads an envelope. A type from a newer build comes back as an {@link UnknownEvent} so it is
 * kept and skipped; a known type with a broken payload is reported, not guessed at.
 */
export function parseEnvelope(raw: unknown): ParsedEvent {
  const envelope = envelopeSchema.safeParse(raw);
  if (!envelope.success) {
    return { ok: false, reason: envelope.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') };
  }
  const { type, payload, ...fields } = envelope.data;
  if (!isKnownEventType(type) || envelope.data.v > EVENT_VERSION_SUPPORTED) {
    return { ok: true, event: { ...fields, type, payload, unknown: true } };
  }
  const parsed = payloadSchemas[type].safeParse(payload);
  if (!parsed.success) {
    return { ok: false, reason: `${type}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}` };
  }
  return { ok: true, event: { ...fields, type, payload: parsed.data } as TranscriptEvent };
}

/** Highest envelope version this build can read. */
const EVENT_VERSION_SUPPORTED = 1;

/** True when the event is one this build cannot reduce. */
export function isUnknownEvent(event: TranscriptEvent | UnknownEvent): event is UnknownEvent {
  return 'unknown' in event;
}
