/**
 * The one pure reducer of transcript events, used by the host (summaries, tests) and by the
 * renderer store alike. Exhaustive over the grammar at compile time; unknown or already-seen
 * events leave the state as it was.
 */
import { isUnknownEvent, type TranscriptEvent, type UnknownEvent } from '../events/index.js';
import { reduceContext } from './context.js';
import { foldAttempts } from './attempts.js';
import { foldRewind, markSelfApprovingMode } from './rewinds.js';
import { foldQuestion } from './questions.js';
import { foldToolWork } from './tools.js';
import type { TranscriptItem, TranscriptState } from './state.js';

/** Folds one event into the state. Never mutates its arguments. */
export function reduce(state: TranscriptState, event: TranscriptEvent | UnknownEvent): TranscriptState {
  if (event.conversationId !== state.conversationId || event.seq <= state.lastSeq) {
    return state;
  }
  if (isUnknownEvent(event)) {
    return { ...state, lastSeq: event.seq, updatedAt: event.at, skippedEvents: state.skippedEvents + 1 };
  }
  // The conversation's own state (title, agent, session, options…) is folded by reduceContext.
  const base: TranscriptState = { ...reduceContext(state, event), lastSeq: event.seq, updatedAt: event.at };
  const key = `${event.seq}`;
  switch (event.type) {
    case 'conversation.created':
    case 'conversation.renamed':
    case 'conversation.archived':
    case 'conversation.unarchived':
    case 'conversation.restored':
    case 'conversation.deleted':
    case 'session.bound':
    case 'session.commands':
    case 'session.info':
    case 'session.option.chosen':
    case 'instructions.set':
    case 'injectors.set':
    case 'binding.changed':
    case 'conversation.branched':
    case 'conversation.attempt':
      return base;
    case 'attempts.started':
    case 'attempt.prepared':
    case 'attempt.failed':
    case 'attempt.kept':
    case 'attempt.continued':
    case 'attempts.removed':
      return foldAttempts(state, base, event, key);
    case 'conversation.rewound':
    case 'conversation.rewindUndone':
      return foldRewind(state, base, event, key);
    case 'session.options':
      return markSelfApprovingMode(base, base.activeTurnId);
    case 'agent.switched': {
      const { turnId, fromAgentName, toAgentName } = event.payload;
      return { ...base, items: [...state.items, { kind: 'handoff', key, turnId, fromAgentName, toAgentName, prepared: undefined }] };
    }
    case 'handoff.prepared': {
      const prepared = event.payload;
      const existing = state.items.findIndex((item) => item.kind === 'handoff' && item.turnId === prepared.turnId);
      if (existing >= 0) {
        return {
          ...base,
          items: state.items.map((item, index) => (index === existing && item.kind === 'handoff' ? { ...item, prepared } : item)),
        };
      }
      const item: TranscriptItem = {
        kind: 'handoff',
        key,
        turnId: prepared.turnId,
        fromAgentName: undefined,
        toAgentName: prepared.toAgentName,
        prepared,
      };
      const at = state.items.findIndex((candidate) => candidate.kind === 'user' && candidate.turnId === prepared.turnId);
      return { ...base, items: at < 0 ? [...state.items, item] : [...state.items.slice(0, at), item, ...state.items.slice(at)] };
    }
    case 'turn.running': {
      const turn = state.turns[event.payload.turnId];
      return turn
        ? markSelfApprovingMode({ ...base, turns: { ...state.turns, [turn.turnId]: { ...turn, status: 'running' } } }, turn.turnId)
        : base;
    }
    case 'turn.started': {
      const { turnId, agentId, agentName, text, attachments, withoutInstructions, withoutTools } = event.payload;
      return {
        ...base,
        activeTurnId: turnId,
        turns: { ...state.turns, [turnId]: { turnId, agentId, agentName, status: 'accepted', stopReason: undefined, startedAt: event.at } },
        items: [
          ...state.items,
          {
            kind: 'user',
            key,
            turnId,
            text,
            at: event.at,
            ...(attachments ? { attachments } : {}),
            ...(withoutInstructions ? { withoutInstructions } : {}),
            ...(withoutTools ? { withoutTools } : {}),
          },
        ],
      };
    }
    case 'turn.steered': {
      const { turnId, text } = event.payload;
      return state.turns[turnId]
        ? { ...base, items: [...state.items, { kind: 'user', key, turnId, text, at: event.at, steered: true }] }
        : base;
    }
    case 'checkpoint.taken': {
      const turn = state.turns[event.payload.turnId];
      return turn
        ? {
            ...base,
            turns: {
              ...state.turns,
              [turn.turnId]: { ...turn, checkpoints: { ...turn.checkpoints, [event.payload.phase]: event.payload } },
            },
          }
        : base;
    }
    case 'file.written': {
      const { turnId, path, bytes, created } = event.payload;
      const turn = state.turns[turnId];
      if (!turn) {
        return base;
      }
      const earlier = turn.written?.find((entry) => entry.path === path);
      const written = [
        ...(turn.written ?? []).filter((entry) => entry.path !== path),
        { path, bytes, created: earlier?.created ?? created },
      ];
      return { ...base, turns: { ...state.turns, [turnId]: { ...turn, written } } };
    }
    case 'usage': {
      const turn = state.turns[event.payload.turnId];
      return turn ? { ...base, turns: { ...state.turns, [turn.turnId]: { ...turn, usage: event.payload } } } : base;
    }
    case 'turn.ended': {
      const { turnId, outcome, stopReason, error, tokens } = event.payload;
      const turn = state.turns[turnId];
      const turns = turn
        ? { ...state.turns, [turnId]: { ...turn, status: outcome, stopReason, ...(tokens ? { tokens } : {}) } }
        : state.turns;
      const closed = outcome === 'completed' ? 'completed' : 'cancelled';
      const items = closeOpenItems(state.items, turnId, closed).map((item) =>
        item.kind === 'subagent' && item.turnId === turnId ? { ...item, items: closeOpenItems(item.items, turnId, closed) } : item,
      );
      const notice = turnEndNotice(key, turnId, outcome, error);
      return {
        ...base,
        turns,
        activeTurnId: state.activeTurnId === turnId ? null : state.activeTurnId,
        items: notice ? [...items, notice] : items,
      };
    }
    case 'context.injected': {
      // Shown where the agent got it: ahead of the person's message of its turn, never inside it.
      const { turnId, injector, timing, origin, level, sha256, text, uri } = event.payload;
      const item: TranscriptItem = { kind: 'injected', key, turnId, injector, timing, origin, level, sha256, text, uri };
      const at = state.items.findIndex((candidate) => candidate.kind === 'user' && candidate.turnId === turnId);
      return { ...base, items: at < 0 ? [...state.items, item] : [...state.items.slice(0, at), item, ...state.items.slice(at)] };
    }
    case 'message.chunk': {
      const { turnId, messageId, text } = event.payload;
      const last = state.items.at(-1);
      if (last && last.kind === 'agent' && last.turnId === turnId && (messageId === undefined || last.messageId === messageId)) {
        return { ...base, items: replaceLast(state.items, { ...last, text: last.text + text }) };
      }
      if (text.trim() === '') {
        // No empty bubble (Qwen starts a message with an empty chunk before a tool call).
        return base;
      }
      const agentName = state.turns[turnId]?.agentName ?? state.agentName;
      return { ...base, items: [...state.items, { kind: 'agent', key, turnId, messageId, agentName, text, at: event.at }] };
    }
    case 'thought.chunk': {
      const { turnId, text } = event.payload;
      const last = state.items.at(-1);
      if (last && last.kind === 'thought' && last.turnId === turnId) {
        return { ...base, items: replaceLast(state.items, { ...last, text: last.text + text }) };
      }
      return { ...base, items: [...state.items, { kind: 'thought', key, turnId, text }] };
    }
    case 'tool.call':
    case 'tool.updated':
    case 'plan':
    case 'subagent.updated':
    case 'subagent.event':
    case 'terminal.started':
    case 'terminal.output':
    case 'terminal.exited':
      return foldToolWork(state, base, event, key, reduce);
    case 'permission.requested':
    case 'permission.decided':
    case 'permission.revoked':
    case 'elicitation.requested':
    case 'elicitation.answered':
    case 'elicitation.completed':
      return foldQuestion(state, base, event, key);
    case 'toolbox.set': {
      const names = event.payload.servers.map((server) => server.name);
      const text =
        names.length === 0
          ? 'Tools: none. The agent gets no MCP servers from the next message on.'
          : `Tools from the next message on: ${names.join(', ')}.`;
      return { ...base, items: [...state.items, { kind: 'notice', key, turnId: undefined, severity: 'info', text }] };
    }
    case 'notice': {
      const { turnId, severity, text } = event.payload;
      return { ...base, items: [...state.items, { kind: 'notice', key, turnId, severity, text }] };
    }
    default:
      return assertNever(event);
  }
}

/**
 * Folds a list of events; the same result as `events.reduce(reduce, state)`, in time linear in
 * the events rather than quadratic (see {@link startFold}).
 */
export function reduceAll(state: TranscriptState, events: ReadonlyArray<TranscriptEvent | UnknownEvent>): TranscriptState {
  if (events.length < 2) {
    return events.reduce(reduce, state);
  }
  const fold = startFold(state);
  for (const event of events) {
    fold.add(event);
  }
  return fold.result();
}

/** A fold in progress: events are added one at a time, and the state is put together once at the end. */
export type Fold = { add(event: TranscriptEvent | UnknownEvent): void; result(): TranscriptState };

/**
 * Starts a fold of events into `state`. `reduce` copies `items` and `turns` on every event, so a
 * fold of a long thread (thousands of turns) would copy them thousands of times. Here the items
 * and turns of finished turns are set aside ("settled") and `reduce` sees only the rest; an event
 * that names a settled turn or question (a late update) first puts them back, so `reduce` always
 * sees everything the event can touch. A fold can be spread over many tasks (the renderer folds a
 * long read in slices); `result` puts the settled part back and can be called once.
 */
export function startFold(state: TranscriptState): Fold {
  let settledItems: TranscriptItem[] = [];
  let settledTurns: Record<string, TranscriptState['turns'][string]> = {};
  const settledTurnIds = new Set<string>();
  const settledRequests = new Set<string>();
  const settle = (current: TranscriptState, upTo: number): TranscriptState => {
    const moving = current.items.slice(0, upTo);
    for (const item of moving) {
      settledItems.push(item);
      if (item.turnId !== undefined) {
        settledTurnIds.add(item.turnId);
      }
      if (item.kind === 'permission') {
        settledRequests.add(item.requestId);
      } else if (item.kind === 'elicitation') {
        settledRequests.add(item.request.requestId);
      }
    }
    const live: TranscriptState['turns'] = {};
    for (const [turnId, turn] of Object.entries(current.turns)) {
      if (turnId === current.activeTurnId) {
        live[turnId] = turn;
      } else {
        settledTurns[turnId] = turn;
        settledTurnIds.add(turnId);
      }
    }
    return { ...current, items: current.items.slice(upTo), turns: live };
  };
  const restore = (current: TranscriptState): TranscriptState => {
    const restored = { ...current, items: settledItems.concat(current.items), turns: { ...settledTurns, ...current.turns } };
    settledItems = [];
    settledTurns = {};
    settledTurnIds.clear();
    settledRequests.clear();
    return restored;
  };
  // At the start, everything ahead of the running turn's first item is settled.
  const active = state.activeTurnId;
  const firstLive = active === null ? -1 : state.items.findIndex((item) => item.turnId === active);
  let current = settle(state, firstLive < 0 ? state.items.length : firstLive);
  return {
    add(event) {
      const payload = (event as { payload?: { turnId?: unknown; requestId?: unknown; attemptsId?: unknown } }).payload;
      const turnId = typeof payload?.turnId === 'string' ? payload.turnId : undefined;
      const requestId = typeof payload?.requestId === 'string' ? payload.requestId : undefined;
      // An attempts event names its item by attempts id (not a turn): it may be settled too.
      const attemptsId =
        typeof payload?.attemptsId === 'string' && event.type !== 'attempts.started' && event.type !== 'conversation.attempt'
          ? payload.attemptsId
          : undefined;
      if (
        (turnId !== undefined && settledTurnIds.has(turnId)) ||
        (requestId !== undefined && settledRequests.has(requestId)) ||
        (attemptsId !== undefined && settledItems.some((item) => item.kind === 'attempts' && item.attemptsId === attemptsId))
      ) {
        current = restore(current);
      }
      current = reduce(current, event);
      if (event.type === 'turn.ended' && current.activeTurnId === null) {
        current = settle(current, current.items.length);
      }
    },
    result: () => restore(current),
  };
}

function replaceLast(items: TranscriptItem[], item: TranscriptItem): TranscriptItem[] {
  const next = items.slice(0, -1);
  next.push(item);
  return next;
}

/** When a turn ends, tool calls still open can no longer finish. */
function closeOpenItems(items: TranscriptItem[], turnId: string, closed: 'completed' | 'cancelled'): TranscriptItem[] {
  const open = new Set(['pending', 'awaiting_permission', 'in_progress']);
  if (!items.some((item) => item.kind === 'tool' && item.turnId === turnId && open.has(item.status))) {
    return items;
  }
  return items.map((item) =>
    item.kind === 'tool' && item.turnId === turnId && open.has(item.status)
      ? { ...item, status: closed === 'completed' ? item.status : 'cancelled' }
      : item,
  );
}

function turnEndNotice(
  key: string,
  turnId: string,
  outcome: 'completed' | 'cancelled' | 'failed' | 'interrupted',
  error: Extract<TranscriptEvent, { type: 'turn.ended' }>['payload']['error'],
): TranscriptItem | undefined {
  switch (outcome) {
    case 'completed':
      return undefined;
    case 'cancelled':
      return { kind: 'notice', key, turnId, severity: 'info', text: 'Stopped.' };
    case 'interrupted':
      return { kind: 'notice', key, turnId, severity: 'warning', text: 'Interrupted: Baton closed before this reply finished.' };
    case 'failed':
      return error
        ? { kind: 'notice', key, turnId, severity: 'error', text: error.message, error }
        : { kind: 'notice', key, turnId, severity: 'error', text: 'The reply failed.' };
    default:
      return assertNever(outcome);
  }
}

function assertNever(value: never): never {
  throw new Error(`Unhandled transcript event: ${JSON.stringify(value)}`);
}
