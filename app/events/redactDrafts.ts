/**
 * One redaction step for everything recorded from outside the person's own typing: agent text and
 * thoughts, tool calls and their output, terminal output, error details, handoffs, permission and
 * form questions. Every string in such an event's payload loses the known secret values. What the
 * person wrote themselves (their message, instructions, titles, choices) is kept as written.
 */
import { redactSecrets } from '../instructions/injectors.js';
import type { EventDraft } from './index.js';

/** Events that hold only what the person typed or chose: recorded as they are. */
const THE_PERSONS_OWN = new Set<EventDraft['type']>([
  'turn.started',
  'instructions.set',
  'injectors.set',
  'toolbox.set',
  'conversation.created',
  'conversation.renamed',
  'session.option.chosen',
  'permission.decided',
  'elicitation.answered',
]);

function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') {
    return redactSecrets(value, secrets);
  }
  if (Array.isArray(value)) {
    return value.map((item) => redactValue(item, secrets));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, secrets)]));
  }
  return value;
}

/** `drafts` with the known secrets taken out of every event that did not come from the person. */
export function redactDrafts(drafts: readonly EventDraft[], secrets: readonly string[]): EventDraft[] {
  if (secrets.length === 0) {
    return [...drafts];
  }
  return drafts.map((draft) =>
    THE_PERSONS_OWN.has(draft.type) ? draft : ({ ...draft, payload: redactValue(draft.payload, secrets) } as EventDraft),
  );
}
