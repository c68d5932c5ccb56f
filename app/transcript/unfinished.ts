/**
 * What closes a transcript left open by a process that is gone: unanswered questions withdrawn,
 * terminals marked ended, unfinished turns interrupted.
 */
import type { EventDraft } from '../events/index.js';
import type { TranscriptState } from './state.js';

/** Drafts that close every unfinished turn of `state` as interrupted (none when all are finished). */
export function interruptUnfinished(state: TranscriptState): EventDraft[] {
  const unfinished = Object.values(state.turns).filter((turn) => turn.status === 'accepted' || turn.status === 'running');
  const open = new Set(unfinished.map((turn) => turn.turnId));
  // Questions and terminals outside any turn belong to the session, which is gone too.
  const inOpenTurn = (turnId: string | undefined): boolean => turnId === undefined || open.has(turnId);
  const withdrawn = state.items.flatMap((item): EventDraft[] => {
    if (item.kind === 'permission' && !item.decision && open.has(item.turnId)) {
      return [
        { type: 'permission.decided', payload: { turnId: item.turnId, requestId: item.requestId, optionId: null, by: 'turn-cancelled' } },
      ];
    }
    if (item.kind === 'elicitation' && !item.answer && inOpenTurn(item.turnId)) {
      return [{ type: 'elicitation.answered', payload: { requestId: item.request.requestId, action: 'cancel', by: 'turn-cancelled' } }];
    }
    return [];
  });
  const ended = Object.values(state.terminals).flatMap((terminal): EventDraft[] =>
    terminal.exit
      ? []
      : [
          {
            type: 'terminal.exited',
            payload: { terminalId: terminal.terminalId, exitCode: null, signal: null, truncated: terminal.truncated },
          },
        ],
  );
  return [
    ...withdrawn,
    ...ended,
    ...unfinished.map((turn): EventDraft => ({ type: 'turn.ended', payload: { turnId: turn.turnId, outcome: 'interrupted' } })),
  ];
}
