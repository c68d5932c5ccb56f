/**
 * The reducer's part for "Ask several agents": one item per message asked of several agents,
 * holding each attempt's state (preparing, prepared, failed; continued as a branch), which one was
 * kept and whether the copies are gone. What each attempt's agent did is in its own conversation.
 */
import type { TranscriptEvent } from '../events/index.js';
import type { AttemptView, TranscriptItem, TranscriptState } from './state.js';

/** The event types of "Ask several agents", as the conversation that asked records them. */
export const ATTEMPTS_EVENT_TYPES = [
  'attempts.started',
  'attempt.prepared',
  'attempt.failed',
  'attempt.kept',
  'attempt.continued',
  'attempts.removed',
] as const;
export type AttemptsEvent = Extract<TranscriptEvent, { type: (typeof ATTEMPTS_EVENT_TYPES)[number] }>;
const ATTEMPTS_TYPES = new Set<string>(ATTEMPTS_EVENT_TYPES);

/** True for an event of "Ask several agents". */
export function isAttemptsEvent(event: TranscriptEvent): event is AttemptsEvent {
  return ATTEMPTS_TYPES.has(event.type);
}
type AttemptsItem = Extract<TranscriptItem, { kind: 'attempts' }>;

/** Folds an attempts event into `base`, the state with the context already folded. */
export function foldAttempts(state: TranscriptState, base: TranscriptState, event: AttemptsEvent, key: string): TranscriptState {
  if (event.type === 'attempts.started') {
    const { attemptsId, text, attempts, repository, container } = event.payload;
    const item: AttemptsItem = {
      kind: 'attempts',
      key,
      attemptsId,
      text,
      at: event.at,
      repository,
      ...(container ? { container } : {}),
      attempts: attempts.map((attempt) => ({ ...attempt, state: 'preparing' })),
      kept: undefined,
      removed: undefined,
    };
    return { ...base, items: [...state.items, item] };
  }
  const index = state.items.findIndex((item) => item.kind === 'attempts' && item.attemptsId === event.payload.attemptsId);
  const current = state.items[index];
  if (!current || current.kind !== 'attempts') {
    return base;
  }
  const next = applyTo(current, event);
  return { ...base, items: state.items.map((item, at) => (at === index ? next : item)) };
}

function applyTo(item: AttemptsItem, event: Exclude<AttemptsEvent, { type: 'attempts.started' }>): AttemptsItem {
  const attempt = (attemptId: string, change: (view: AttemptView) => AttemptView): AttemptsItem => ({
    ...item,
    attempts: item.attempts.map((view) => (view.attemptId === attemptId ? change(view) : view)),
  });
  switch (event.type) {
    case 'attempt.prepared':
      return attempt(event.payload.attemptId, (view) => ({
        ...view,
        state: 'prepared',
        checkpointId: event.payload.checkpointId,
        fromSeq: event.payload.fromSeq,
      }));
    case 'attempt.failed':
      return attempt(event.payload.attemptId, (view) => ({ ...view, state: 'failed', reason: event.payload.reason }));
    case 'attempt.continued':
      return attempt(event.payload.attemptId, (view) => ({
        ...view,
        continuedAs: event.payload.conversationId,
        ...(event.payload.branch === undefined ? {} : { branch: event.payload.branch }),
      }));
    case 'attempt.kept':
      return { ...item, kept: event.payload };
    case 'attempts.removed':
      return { ...item, removed: event.payload };
  }
}

/** Agents one message may ask at once, unless the setting `attempts.max` says fewer. */
export const MAX_ATTEMPTS = 4;

/** The attempts asked in a transcript that are still open: none kept, copies not removed. */
export function openAttempts(state: Pick<TranscriptState, 'items'>): AttemptsItem[] {
  return state.items.filter(
    (item): item is AttemptsItem => item.kind === 'attempts' && item.kept === undefined && item.removed === undefined,
  );
}

/** A git branch name's part made of an agent id (`registry:kilo` → `registry-kilo`). */
export function branchPart(text: string): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/\.lock$/i, '-lock');
  return cleaned === '' ? 'agent' : cleaned;
}
