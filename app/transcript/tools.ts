/**
 * The reducer's part for what an agent does in a turn besides writing: tool calls (a card each,
 * updated in place within its turn), the plan (one live checklist per turn), subagents (a card
 * each, their work folded as a reply's is) and the terminals it runs.
 */
import type { TranscriptEvent, UnknownEvent } from '../events/index.js';
import { emptyTranscript, type TranscriptItem, type TranscriptState } from './state.js';

/** The events this part folds. */
type ToolWorkEvent = Extract<
  TranscriptEvent,
  {
    type:
      | 'tool.call'
      | 'tool.updated'
      | 'plan'
      | 'subagent.updated'
      | 'subagent.event'
      | 'terminal.started'
      | 'terminal.output'
      | 'terminal.exited';
  }
>;

/** Folds a tool, plan, subagent or terminal event into `base` (the state with the context folded); `reduce` folds a subagent's own work. */
export function foldToolWork(
  state: TranscriptState,
  base: TranscriptState,
  event: ToolWorkEvent,
  key: string,
  reduce: (state: TranscriptState, event: TranscriptEvent | UnknownEvent) => TranscriptState,
): TranscriptState {
  switch (event.type) {
    case 'tool.call': {
      const { turnId, toolCallId, title, kind, status, content, rawInput } = event.payload;
      const item: TranscriptItem = {
        kind: 'tool',
        key,
        turnId,
        toolCallId,
        title,
        toolKind: kind,
        status,
        content: content ?? [],
        ...(rawInput !== undefined ? { rawInput } : {}),
      };
      return { ...base, items: [...state.items, item] };
    }
    case 'tool.updated': {
      // Tool-call ids are unique only within an agent's session: match within the update's own turn.
      const { turnId, toolCallId, title, status, content, rawInput } = event.payload;
      return {
        ...base,
        items: state.items.map((item) =>
          item.kind === 'tool' && item.turnId === turnId && item.toolCallId === toolCallId
            ? item.status === 'rejected'
              ? // The person said no: the agent's later report ("refused", failed) adds to the card, which keeps what was proposed.
                {
                  ...item,
                  title: title ?? item.title,
                  content: content
                    ? [...item.content.filter((part) => part.type === 'diff'), ...content.filter((part) => part.type !== 'diff')]
                    : item.content,
                }
              : {
                  ...item,
                  title: title ?? item.title,
                  status: status ?? item.status,
                  content: content ?? item.content,
                  ...(rawInput !== undefined ? { rawInput } : {}),
                }
            : item,
        ),
      };
    }
    case 'plan': {
      const { turnId, entries } = event.payload;
      const existing = state.items.findIndex((item) => item.kind === 'plan' && item.turnId === turnId);
      if (existing >= 0) {
        return {
          ...base,
          items: state.items.map((item, index) => (index === existing && item.kind === 'plan' ? { ...item, entries } : item)),
        };
      }
      return { ...base, items: [...state.items, { kind: 'plan', key, turnId, entries }] };
    }
    case 'subagent.updated': {
      const { turnId, subagentId, title, description, state: work } = event.payload;
      return {
        ...base,
        items: updateSubagent(state.items, key, turnId, subagentId, (subagent) => ({
          ...subagent,
          ...(title !== undefined ? { title: title ?? undefined } : {}),
          ...(description !== undefined ? { description: description ?? undefined } : {}),
          ...(work !== undefined ? { state: work } : {}),
        })),
      };
    }
    case 'subagent.event': {
      const { turnId, subagentId, event: activity } = event.payload;
      return {
        ...base,
        items: updateSubagent(state.items, key, turnId, subagentId, (subagent) => {
          // Its work folds exactly as a reply's does, into its own list.
          const own: TranscriptState = {
            ...emptyTranscript(event.conversationId),
            agentName: subagent.title ?? 'Subagent',
            lastSeq: event.seq - 1,
            items: subagent.items,
          };
          return { ...subagent, items: reduce(own, { ...event, ...activity }).items };
        }),
      };
    }
    case 'terminal.started': {
      const { terminalId, command, cwd } = event.payload;
      return {
        ...base,
        terminals: { ...state.terminals, [terminalId]: { terminalId, command, cwd, output: '', exit: undefined, truncated: false } },
      };
    }
    case 'terminal.output': {
      const terminal = state.terminals[event.payload.terminalId];
      return terminal
        ? {
            ...base,
            terminals: { ...state.terminals, [terminal.terminalId]: { ...terminal, output: terminal.output + event.payload.text } },
          }
        : base;
    }
    case 'terminal.exited': {
      const { terminalId, exitCode, signal, truncated } = event.payload;
      const terminal = state.terminals[terminalId];
      return terminal
        ? { ...base, terminals: { ...state.terminals, [terminalId]: { ...terminal, exit: { exitCode, signal }, truncated } } }
        : base;
    }
  }
}

type SubagentItem = Extract<TranscriptItem, { kind: 'subagent' }>;

/** Changes a turn's subagent card, made (at `key`) on its first news. */
function updateSubagent(
  items: TranscriptItem[],
  key: string,
  turnId: string,
  subagentId: string,
  change: (subagent: SubagentItem) => SubagentItem,
): TranscriptItem[] {
  const at = items.findIndex((item) => item.kind === 'subagent' && item.subagentId === subagentId);
  if (at < 0) {
    return [
      ...items,
      change({ kind: 'subagent', key, turnId, subagentId, title: undefined, description: undefined, state: undefined, items: [] }),
    ];
  }
  return items.map((item, index) => (index === at && item.kind === 'subagent' ? change(item) : item));
}

/** Sets the status of a tool call of `turnId` (only from `onlyFrom`, when given: a later agent update wins). */
export function setToolStatus(
  items: TranscriptItem[],
  turnId: string,
  toolCallId: string | undefined,
  status: Extract<TranscriptItem, { kind: 'tool' }>['status'],
  onlyFrom?: Extract<TranscriptItem, { kind: 'tool' }>['status'],
): TranscriptItem[] {
  if (toolCallId === undefined) {
    return items;
  }
  return items.map((item) =>
    item.kind === 'tool' && item.turnId === turnId && item.toolCallId === toolCallId && (onlyFrom === undefined || item.status === onlyFrom)
      ? { ...item, status }
      : item,
  );
}
