/**
 * The reducer's part for what an agent asks the person: permission questions (the tool call they
 * are about waits, and shows the answer), their revocation, and elicitations.
 */
import type { TranscriptEvent } from '../events/index.js';
import type { TranscriptState } from './state.js';
import { setToolStatus } from './tools.js';

/** The events this part folds. */
type QuestionEvent = Extract<
  TranscriptEvent,
  {
    type:
      | 'permission.requested'
      | 'permission.decided'
      | 'permission.revoked'
      | 'elicitation.requested'
      | 'elicitation.answered'
      | 'elicitation.completed';
  }
>;

/** Folds a question or its answer into `base` (the state with the context folded). */
export function foldQuestion(state: TranscriptState, base: TranscriptState, event: QuestionEvent, key: string): TranscriptState {
  switch (event.type) {
    case 'permission.requested': {
      const { turnId, requestId, toolCallId, title, options, rawInput } = event.payload;
      const items = setToolStatus(state.items, turnId, toolCallId, 'awaiting_permission');
      return {
        ...base,
        items: [
          ...items,
          {
            kind: 'permission',
            key,
            turnId,
            requestId,
            toolCallId,
            title,
            options,
            decision: undefined,
            ...(rawInput !== undefined ? { rawInput } : {}),
          },
        ],
      };
    }
    case 'permission.decided': {
      const decision = event.payload;
      const request = state.items.find((item) => item.kind === 'permission' && item.requestId === decision.requestId);
      if (!request || request.kind !== 'permission') {
        return base;
      }
      const chosen = request.options.find((option) => option.optionId === decision.optionId);
      const toolStatus = !chosen ? 'cancelled' : chosen.kind.startsWith('allow') ? 'in_progress' : 'rejected';
      return {
        ...base,
        items: setToolStatus(state.items, request.turnId, request.toolCallId, toolStatus, 'awaiting_permission').map((item) =>
          item === request ? { ...request, decision } : item,
        ),
      };
    }
    case 'permission.revoked': {
      const { requestId, note } = event.payload;
      return {
        ...base,
        items: state.items.map((item) =>
          item.kind === 'permission' && item.requestId === requestId ? { ...item, revoked: { at: event.at, note } } : item,
        ),
      };
    }
    case 'elicitation.requested':
      return {
        ...base,
        items: [
          ...state.items,
          { kind: 'elicitation', key, turnId: event.payload.turnId, request: event.payload, answer: undefined, completed: false },
        ],
      };
    case 'elicitation.answered': {
      const answer = event.payload;
      return {
        ...base,
        items: state.items.map((item) =>
          item.kind === 'elicitation' && item.request.requestId === answer.requestId && !item.answer ? { ...item, answer } : item,
        ),
      };
    }
    case 'elicitation.completed': {
      const { requestId } = event.payload;
      return {
        ...base,
        items: state.items.map((item) =>
          item.kind === 'elicitation' && item.request.requestId === requestId ? { ...item, completed: true } : item,
        ),
      };
    }
  }
}
