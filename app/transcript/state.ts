/** The shape the reducer folds a transcript into: what a conversation view shows. */
import type { WireError } from '../errors.js';
import type { EventPayload } from '../events/index.js';

type ToolContent = NonNullable<EventPayload<'tool.call'>['content']>;

/** One thing shown in a transcript, in order. */
export type TranscriptItem =
  | { kind: 'user'; key: string; turnId: string; text: string }
  | { kind: 'agent'; key: string; turnId: string; messageId: string | undefined; agentName: string; text: string }
  | { kind: 'thought'; key: string; turnId: string; text: string }
  | {
      kind: 'tool';
      key: string;
      turnId: string;
      toolCallId: string;
      title: string;
      toolKind: string | undefined;
      status: EventPayload<'tool.call'>['status'];
      content: ToolContent;
    }
  | { kind: 'plan'; key: string; turnId: string; entries: EventPayload<'plan'>['entries'] }
  | {
      kind: 'permission';
      key: string;
      turnId: string;
      requestId: string;
      toolCallId: string | undefined;
      title: string;
      options: EventPayload<'permission.requested'>['options'];
      decision: EventPayload<'permission.decided'> | undefined;
    }
  | {
      kind: 'elicitation';
      key: string;
      turnId: string | undefined;
      request: EventPayload<'elicitation.requested'>;
      answer: EventPayload<'elicitation.answered'> | undefined;
      /** For a link: the agent reported it done. */
      completed: boolean;
    }
  | { kind: 'notice'; key: string; turnId: string | undefined; severity: 'info' | 'warning' | 'error'; text: string; error?: WireError };

/** A client terminal the agent ran a command in, as far as the transcript keeps it. */
export type TerminalView = {
  terminalId: string;
  command: string;
  cwd: string;
  output: string;
  exit: { exitCode: number | null; signal: string | null } | undefined;
  truncated: boolean;
};

/** Status of one turn: accepted (committed) → running (the agent has it) → how it ended. */
export type TurnStatus = 'accepted' | 'running' | EventPayload<'turn.ended'>['outcome'];

/** Where a conversation stands in the history. */
export type ConversationLifecycle = 'active' | 'archived' | 'deleted';

/** A turn's bookkeeping. */
export type TurnState = { turnId: string; agentId: string; agentName: string; status: TurnStatus; stopReason: string | undefined };

/** A conversation's whole transcript as the reducer sees it. */
export type TranscriptState = {
  conversationId: string;
  title: string;
  agentId: string;
  agentName: string;
  cwd: string;
  createdAt: string;
  updatedAt: string;
  lifecycle: ConversationLifecycle;
  /** Sequence number of the last event folded in; events at or below it are ignored. */
  lastSeq: number;
  items: TranscriptItem[];
  turns: Record<string, TurnState>;
  /** The turn being written now, if any. */
  activeTurnId: string | null;
  /** The agent session last bound, so a restarted host can load it. */
  session: EventPayload<'session.bound'> | null;
  usage: EventPayload<'usage'> | null;
  /** The agent's session options as it last reported them. */
  sessionOptions: EventPayload<'session.options'>['options'];
  /** The agent's slash commands. */
  commands: EventPayload<'session.commands'>['commands'];
  /** The agent's own title for its session, if it gave one. */
  sessionTitle: string | null;
  /** What the person chose, by option id. */
  chosenOptions: Record<string, string>;
  /** Client terminals by id (tool calls show them by reference). */
  terminals: Record<string, TerminalView>;
  /** Events of types this build does not know, kept in the store and skipped here. */
  skippedEvents: number;
};

/** The state before any event. */
export function emptyTranscript(conversationId: string): TranscriptState {
  return {
    conversationId,
    title: '',
    agentId: '',
    agentName: '',
    cwd: '',
    lifecycle: 'active',
    createdAt: '',
    updatedAt: '',
    lastSeq: 0,
    items: [],
    turns: {},
    activeTurnId: null,
    session: null,
    usage: null,
    sessionOptions: [],
    commands: [],
    sessionTitle: null,
    chosenOptions: {},
    terminals: {},
    skippedEvents: 0,
  };
}

/**
 * The state to fold a transcript's tail into, when it is read from `firstSeq` on: what the
 * skipped beginning established (title, agent, folder, place in the history) comes from the
 * conversation's summary.
 */
export function tailTranscript(
  summary: Pick<TranscriptState, 'conversationId' | 'title' | 'agentId' | 'agentName' | 'cwd' | 'createdAt' | 'updatedAt' | 'lifecycle'>,
  firstSeq: number,
): TranscriptState {
  const base = emptyTranscript(summary.conversationId);
  if (firstSeq <= 1) {
    return base;
  }
  const { title, agentId, agentName, cwd, createdAt, updatedAt, lifecycle } = summary;
  return { ...base, title, agentId, agentName, cwd, createdAt, updatedAt, lifecycle, lastSeq: firstSeq - 1 };
}
