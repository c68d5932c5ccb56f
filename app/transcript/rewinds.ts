/**
 * The reducer's part for rewinds (and the mode a turn ran in): a rewind leaves a marker where it
 * happened, and the turns it set aside (in the context's `setAside`) are kept in the state but
 * shown apart; "Undo rewind" brings them back and says so.
 */
import type { EventPayload, TranscriptEvent } from '../events/index.js';
import type { TranscriptItem, TranscriptState } from './state.js';

/**
 * Folds `conversation.rewound` (a marker) and `conversation.rewindUndone` (a notice) into `base`, the state with the context already
 * folded.
 */
export function foldRewind(
  state: TranscriptState,
  base: TranscriptState,
  event: Extract<TranscriptEvent, { type: 'conversation.rewound' | 'conversation.rewindUndone' }>,
  key: string,
): TranscriptState {
  if (event.type === 'conversation.rewound') {
    const { pointSeq: _pointSeq, ...rewind } = event.payload;
    return { ...base, items: [...state.items, { kind: 'rewind', key, at: event.at, ...rewind }] };
  }
  const failed = event.payload.failed;
  const text =
    failed.length === 0
      ? 'Rewind undone: the set-aside turns are back, and the files are as they were before the rewind.'
      : `Rewind undone: the set-aside turns are back, but ${failed.length} file${failed.length === 1 ? '' : 's'} could not be put back: ${failed.map((file) => `${file.path} (${file.reason})`).join(', ')}.`;
  return {
    ...base,
    items: [...state.items, { kind: 'notice', key, turnId: undefined, severity: failed.length === 0 ? 'info' : 'warning', text }],
  };
}

/** Whether an item belongs to a turn a rewind set aside. */
export function isSetAside(state: Pick<TranscriptState, 'setAside'>, item: TranscriptItem): boolean {
  return item.turnId !== undefined && state.setAside[item.turnId] !== undefined;
}

/** The rewind a marker stands for can still be undone: the turns it set aside are still set aside. */
export function canUndoRewind(state: Pick<TranscriptState, 'setAside'>, rewind: Extract<TranscriptItem, { kind: 'rewind' }>): boolean {
  return Object.values(state.setAside).includes(rewind.rewindId);
}

/** What a rewind did to the files, in words. */
export function rewindFilesText(rewind: Pick<EventPayload<'conversation.rewound'>, 'files' | 'changed' | 'failed'>): string {
  if (rewind.files === 'kept') {
    return 'The files were kept as they were.';
  }
  const counts = (['restored', 'removed', 'recreated'] as const).flatMap((action) => {
    const n = rewind.changed.filter((file) => file.action === action).length;
    return n > 0 ? [`${n} ${action}`] : [];
  });
  const done = counts.length > 0 ? `Files: ${counts.join(', ')}.` : 'No files needed to change.';
  return rewind.failed.length > 0
    ? `${done} Could not put back: ${rewind.failed.map((file) => `${file.path} (${file.reason})`).join(', ')}.`
    : done;
}

/** Marks the turn as run in a mode where the agent decides alone, when the session is in one now (just bound, or changed while it runs). */
export function markSelfApprovingMode(state: TranscriptState, turnId: string | null): TranscriptState {
  const turn = turnId ? state.turns[turnId] : undefined;
  const mode = state.sessionOptions.find((option) => option.category === 'mode');
  const current = mode?.options.find((value) => value.value === mode.currentValue);
  if (!turn || current?.selfApproving !== true || turn.selfApprovingMode !== undefined) {
    return state;
  }
  return { ...state, turns: { ...state.turns, [turn.turnId]: { ...turn, selfApprovingMode: current.name } } };
}

/** Events in a turn after which the agent's session holds more than its last message (a fork there would cut them off). */
const AFTER_MESSAGE = new Set<TranscriptEvent['type']>([
  'tool.call',
  'tool.updated',
  'subagent.updated',
  'subagent.event',
  'terminal.started',
  'terminal.exited',
]);

/**
 * Where an agent's session can go on from after a rewind to `pointSeq`: the last turn kept ended
 * completed with a message of its agent's (nothing after it in the turn), in the session that agent
 * still has in the conversation, which saw turns past the point (else it is kept as it is). The
 * session is then forked at that message instead of given up. Undefined when there is no such turn.
 */
export function sessionForkPoint(
  events: readonly TranscriptEvent[],
  state: Pick<TranscriptState, 'sessions' | 'setAside'>,
  pointSeq: number,
): EventPayload<'conversation.rewound'>['fork'] {
  const before = events.filter((event) => event.seq < pointSeq);
  const ended = before.findLast(
    (event): event is Extract<TranscriptEvent, { type: 'turn.ended' }> =>
      event.type === 'turn.ended' && state.setAside[event.payload.turnId] === undefined,
  );
  if (!ended || ended.payload.outcome !== 'completed') {
    return undefined;
  }
  const { turnId } = ended.payload;
  const started = before.find(
    (event): event is Extract<TranscriptEvent, { type: 'turn.started' }> =>
      event.type === 'turn.started' && event.payload.turnId === turnId,
  );
  const agentId = started?.payload.agentId;
  const own = agentId === undefined ? undefined : state.sessions[agentId];
  if (agentId === undefined || !own || own.watermark <= pointSeq) {
    return undefined;
  }
  const bound = before.findLast(
    (event): event is Extract<TranscriptEvent, { type: 'session.bound' }> =>
      event.type === 'session.bound' && event.seq < ended.seq && event.payload.agentId === agentId,
  );
  const last = before.findLast(
    (event) =>
      event.seq < ended.seq &&
      'turnId' in event.payload &&
      event.payload.turnId === turnId &&
      (event.type === 'message.chunk' || AFTER_MESSAGE.has(event.type)),
  );
  if (bound?.payload.sessionId !== own.sessionId || last?.type !== 'message.chunk' || last.payload.messageId === undefined) {
    return undefined;
  }
  return { agentId, sessionId: own.sessionId, messageId: last.payload.messageId, watermark: ended.seq };
}
