/** The shape the reducer folds a transcript into: what a conversation view shows. */
import type { WireError } from '../errors.js';
import type { EventPayload } from '../events/index.js';
import { contextOf, emptyContext, type ConversationContext } from './context.js';

export type { ConversationLifecycle } from './context.js';

type ToolContent = NonNullable<EventPayload<'tool.call'>['content']>;

/** One thing shown in a transcript, in order. */
export type TranscriptItem =
  | {
      kind: 'user';
      key: string;
      turnId: string;
      text: string;
      /** When it was committed. */ at: string;
      /** What was attached to it. */ attachments?: EventPayload<'turn.started'>['attachments'];
      /** Sent into the running turn ("Send now"), not as a turn of its own. */ steered?: boolean;
      /** Sent without the person's standing instructions, this once. */ withoutInstructions?: true;
      /** Sent without the conversation's toolbox, this once. */ withoutTools?: true;
    }
  | {
      kind: 'agent';
      key: string;
      turnId: string;
      messageId: string | undefined;
      agentName: string;
      text: string;
      /** When its first chunk came. */ at: string;
    }
  | { kind: 'thought'; key: string; turnId: string; text: string }
  /**
   * Where the conversation passed to another agent (`fromAgentName` set), or an agent was caught up after its session had to start again;
   * with what it was given once known.
   */
  | {
      kind: 'handoff';
      key: string;
      turnId: string;
      fromAgentName: string | undefined;
      toAgentName: string;
      prepared: EventPayload<'handoff.prepared'> | undefined;
    }
  | ({ kind: 'injected'; key: string } & Omit<EventPayload<'context.injected'>, 'uri'> & { uri: string | undefined })
  | {
      kind: 'tool';
      key: string;
      turnId: string;
      toolCallId: string;
      title: string;
      toolKind: string | undefined;
      status: EventPayload<'tool.call'>['status'];
      content: ToolContent;
      /** What the agent passed the tool, as it reported it. */
      rawInput?: unknown;
    }
  | { kind: 'plan'; key: string; turnId: string; entries: EventPayload<'plan'>['entries'] }
  /** A subagent the agent ran in the turn, with its own text, tool calls and plan (folded like a reply's). */
  | {
      kind: 'subagent';
      key: string;
      turnId: string;
      subagentId: string;
      title: string | undefined;
      description: string | undefined;
      state: string | undefined;
      items: TranscriptItem[];
    }
  | {
      kind: 'permission';
      key: string;
      turnId: string;
      requestId: string;
      toolCallId: string | undefined;
      title: string;
      options: EventPayload<'permission.requested'>['options'];
      decision: EventPayload<'permission.decided'> | undefined;
      /** The tool's input, as the question gave it. */
      rawInput?: unknown;
      /** Set once the person revoked the "always" answer given here. */
      revoked?: { at: string; note: string | null };
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
  /** One message asked of several agents at once: each attempt's state (its text is in its own conversation), and which one was kept. */
  | {
      kind: 'attempts';
      key: string;
      turnId?: undefined;
      attemptsId: string;
      text: string;
      at: string;
      repository: string | undefined;
      /** Each attempt in a container of its own (the image, and whether it has a network). */
      container?: { image: string; network: boolean } | undefined;
      attempts: AttemptView[];
      kept: EventPayload<'attempt.kept'> | undefined;
      removed: EventPayload<'attempts.removed'> | undefined;
    }
  /** Where the person rewound the conversation: to before the message of `toTurnId` (`pointAt`), with what happened to the files. */
  | ({ kind: 'rewind'; key: string; turnId?: undefined; at: string } & Omit<EventPayload<'conversation.rewound'>, 'pointSeq'>)
  | { kind: 'notice'; key: string; turnId: string | undefined; severity: 'info' | 'warning' | 'error'; text: string; error?: WireError };

/** One attempt of several, as the conversation that asked records it. */
export type AttemptView = EventPayload<'attempts.started'>['attempts'][number] & {
  /** Its copy is being made; its copy is ready and its agent has the message; or it could not start. */
  state: 'preparing' | 'prepared' | 'failed';
  /** Why it could not start. */
  reason?: string;
  /** The checkpoint of the working folder the copy was made from. */
  checkpointId?: string;
  /** The last event of the history its conversation was given (its own turns come after). */
  fromSeq?: number;
  /** The branch it was continued as. */
  continuedAs?: string;
};

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

/** A turn's bookkeeping. */
export type TurnState = {
  turnId: string;
  agentId: string;
  agentName: string;
  status: TurnStatus;
  stopReason: string | undefined;
  /** When the person's message was committed. */
  startedAt: string;
  /** The agent's last report of its context window during the turn (and the session's cost so far). */
  usage?: EventPayload<'usage'> | undefined;
  /** Tokens the turn used, when the agent reported them. */
  tokens?: EventPayload<'turn.ended'>['tokens'];
  /** The mode the turn ran in (for some or all of it) in which the agent decides without asking the person, if it did. */
  selfApprovingMode?: string;
  /** The checkpoints of the working folder taken before and after the turn. */
  checkpoints?: Partial<Record<'before' | 'after', EventPayload<'checkpoint.taken'>>>;
  /** Files the agent wrote through Baton during the turn (each path once, the last write's size). */
  written?: ReadonlyArray<{ path: string; bytes: number; created: boolean }>;
};

/** A conversation's whole transcript as the reducer sees it: its context plus its turns. */
export type TranscriptState = ConversationContext & {
  updatedAt: string;
  /** Sequence number of the last event folded in; events at or below it are ignored. */
  lastSeq: number;
  items: TranscriptItem[];
  turns: Record<string, TurnState>;
  /** The turn being written now, if any. */
  activeTurnId: string | null;
  /** Client terminals by id (tool calls show them by reference). */
  terminals: Record<string, TerminalView>;
  /** Events of types this build does not know, kept in the store and skipped here. */
  skippedEvents: number;
};

/** The tool call a permission question is about, if the transcript has it. */
export function toolOfPermission(
  items: readonly TranscriptItem[],
  item: Extract<TranscriptItem, { kind: 'permission' }>,
): Extract<TranscriptItem, { kind: 'tool' }> | undefined {
  const tool = items.find(
    (candidate) => candidate.kind === 'tool' && candidate.turnId === item.turnId && candidate.toolCallId === item.toolCallId,
  );
  return tool?.kind === 'tool' ? tool : undefined;
}

/** The state before any event. */
export function emptyTranscript(conversationId: string): TranscriptState {
  return {
    ...emptyContext(conversationId),
    updatedAt: '',
    lastSeq: 0,
    items: [],
    turns: {},
    activeTurnId: null,
    terminals: {},
    skippedEvents: 0,
  };
}

/**
 * The state to fold a transcript's tail into, when it is read from `firstSeq` on: what the
 * skipped beginning established comes from the conversation's context (the store's projection,
 * which the tail's own events then fold over; see `context.ts` for why that is exact).
 */
export function tailTranscript(context: ConversationContext, firstSeq: number): TranscriptState {
  const base = emptyTranscript(context.conversationId);
  if (firstSeq <= 1) {
    return base;
  }
  return { ...base, ...contextOf(context), lastSeq: firstSeq - 1 };
}
