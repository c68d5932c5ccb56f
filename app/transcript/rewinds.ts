/**
 * The reducer's part for rewinds (and the mode a turn ran in): a rewind leaves a marker where it
 * happened, and the turns it set aside (in the context's `setAside`) are kept in the state but
 * shown apart; "Undo rewind" brings them back and says so.
 */
import type { EventPayload, TranscriptEvent } from '../events/index.js';
import type { TranscriptItem, TranscriptState } from './state.js';

/** Folds `conversation.rewound` (a marker) and `conversation.rewindUndone` (a notice) into `base`, the state with the context already folded. */
export function foldRewind(state: TranscriptState, base: TranscriptState, event: Extract<TranscriptEvent, { type: 'conversation.rewound' | 'conversation.rewindUndone' }>, key: string): TranscriptState {
  if (event.type === 'conversation.rewound') {
    const { pointSeq: _pointSeq, ...rewind } = event.payload;
    return { ...base, items: [...state.items, { kind: 'rewind', key, at: event.at, ...rewind }] };
  }
  const failed = event.payload.failed;
  const text =
    failed.length === 0
      ? 'Rewind undone: the set-aside turns are back, and the files are as they were before the rewind.'
      : `Rewind undone: the set-aside turns are back, but ${failed.length} file${failed.length === 1 ? '' : 's'} could not be put back: ${failed.map((file) => `${file.path} (${file.reason})`).join(', ')}.`;
  return { ...base, items: [...state.items, { kind: 'notice', key, turnId: undefined, severity: failed.length === 0 ? 'info' : 'warning', text }] };
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
  return rewind.failed.length > 0 ? `${done} Could not put back: ${rewind.failed.map((file) => `${file.path} (${file.reason})`).join(', ')}.` : done;
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
