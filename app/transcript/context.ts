/**
 * A conversation's own state, as opposed to its turns: title, agent, folder, place in the history,
 * the bound agent session, its options, commands and title, the person's choices and the last
 * usage. The reducer folds it with everything else; the store keeps it as a projection, so a
 * transcript opened at its tail starts from it instead of losing what was set before the tail.
 * Every field is last-writer-wins (the choices by option), so folding the tail's events over the
 * latest context gives the same state as folding the whole log.
 */
import { z } from 'zod';
import { payloadSchemas, type TranscriptEvent } from '../events/index.js';
import { LOCAL_MACHINE_ID } from '../ids.js';

/** Each agent's own session in a conversation (see `sessions` below). */
const agentSessionsSchema = z.record(
  z.string(),
  z.object({
    sessionId: z.string(),
    how: z.enum(['new', 'load', 'resume', 'fork']),
    watermark: z.number().int().nonnegative(),
    sessionDigest: z.string().optional(),
    /** After a rewind: the session is not reopened as it is but forked at this message of the agent's (it saw nothing later). */
    forkAt: z.string().optional(),
  }),
);

/** The wire and storage form of a {@link ConversationContext}. */
export const conversationContextSchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  cwd: z.string(),
  /** The machine `cwd` is on (contexts stored before machines: this computer). */
  machine: z.string().default(LOCAL_MACHINE_ID),
  createdAt: z.string(),
  lifecycle: z.enum(['active', 'archived', 'deleted', 'attempt']),
  /** The agent session last bound, so a restarted host can reopen it. */
  session: payloadSchemas['session.bound'].nullable(),
  usage: payloadSchemas.usage.nullable(),
  /** The agent's session options as it last reported them. */
  sessionOptions: payloadSchemas['session.options'].shape.options,
  /** The agent's slash commands. */
  commands: payloadSchemas['session.commands'].shape.commands,
  /** The agent's own title for its session, if it gave one. */
  sessionTitle: z.string().nullable(),
  /** What the person chose, by option id. */
  chosenOptions: z.record(z.string(), z.string()),
  /** The conversation's own standing instructions, if it has any. */
  instructions: payloadSchemas['instructions.set'].nullable().default(null),
  /** The MCP servers it may use (null: none chosen). */
  toolbox: payloadSchemas['toolbox.set'].nullable().default(null),
  /** The injectors it selected (null: none ever chosen). */
  injectors: payloadSchemas['injectors.set'].nullable().default(null),
  /**
   * Each agent's own session in this conversation: how it was bound and its watermark, the seq of
   * the last turn end it took part in (what happened after it is what that session has not seen).
   */
  sessions: agentSessionsSchema.default({}),
  /**
   * The sessions as they were before each rewind not undone (by rewind id): an undo puts them back,
   * since they saw exactly the turns the undo brings back (what came after is handed over by watermark).
   */
  rewoundFrom: z
    .record(z.string(), z.object({ session: payloadSchemas['session.bound'].nullable(), sessions: agentSessionsSchema }))
    .default({}),
  /** Option choices per agent (`chosenOptions` are the current agent's). */
  chosenByAgent: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  /** The context size each agent last reported (tokens), for the size of a handoff to it. */
  contextSizes: z.record(z.string(), z.number()).default({}),
  /** Seq of the last turn that ended completed or cancelled (0: none). */
  lastTurnEndSeq: z.number().int().nonnegative().default(0),
  /** Turns a rewind set aside (by turn id, the rewind's id): kept and shown apart, never handed to an agent. */
  setAside: z.record(z.string(), z.string()).default({}),
  /** An agent has been given a prompt in it (a turn reached `turn.running`): first-turn injectors are done. Only ever set. */
  prompted: z.boolean().default(false),
});

/** A conversation's own state (see the file comment). */
export type ConversationContext = z.infer<typeof conversationContextSchema>;

/** Where a conversation stands in the history. */
export type ConversationLifecycle = ConversationContext['lifecycle'];

/** The context before any event. */
export function emptyContext(conversationId: string): ConversationContext {
  return {
    conversationId,
    title: '',
    agentId: '',
    agentName: '',
    cwd: '',
    machine: LOCAL_MACHINE_ID,
    createdAt: '',
    lifecycle: 'active',
    session: null,
    usage: null,
    sessionOptions: [],
    commands: [],
    sessionTitle: null,
    chosenOptions: {},
    instructions: null,
    toolbox: null,
    injectors: null,
    prompted: false,
    setAside: {},
    sessions: {},
    rewoundFrom: {},
    chosenByAgent: {},
    contextSizes: {},
    lastTurnEndSeq: 0,
  };
}

/** The fields of a context, from its schema (a field added there is carried without a second list). */
const CONTEXT_FIELDS = Object.keys(conversationContextSchema.shape) as Array<keyof ConversationContext>;

/** The context fields of a larger state (a whole transcript). */
export function contextOf(state: ConversationContext): ConversationContext {
  return Object.fromEntries(CONTEXT_FIELDS.map((field) => [field, state[field]])) as ConversationContext;
}

/**
 * Folds one event into the context part of `state` (a context, or a whole transcript that
 * contains one). Returns `state` itself when the event does not touch the context.
 */
export function reduceContext<T extends ConversationContext>(state: T, event: TranscriptEvent): T {
  switch (event.type) {
    case 'conversation.created': {
      const { title, agentId, agentName, cwd, machine } = event.payload;
      return { ...state, title, agentId, agentName, cwd, machine: machine ?? LOCAL_MACHINE_ID, createdAt: event.at };
    }
    case 'conversation.renamed':
      return { ...state, title: event.payload.title };
    case 'conversation.archived':
      return { ...state, lifecycle: 'archived' };
    case 'conversation.unarchived':
    case 'conversation.restored':
      return { ...state, lifecycle: 'active' };
    case 'conversation.deleted':
      return { ...state, lifecycle: 'deleted' };
    case 'conversation.attempt': {
      // The options picked for the attempt's agent are its choices here (taken up when it is switched to).
      const { agentId, chosen } = event.payload;
      const mine = { ...state.chosenByAgent[agentId], ...chosen };
      return {
        ...state,
        lifecycle: 'attempt',
        chosenByAgent: { ...state.chosenByAgent, [agentId]: mine },
        ...(state.agentId === agentId ? { chosenOptions: mine } : {}),
      };
    }
    case 'conversation.branched':
      return state.lifecycle === 'attempt' ? { ...state, lifecycle: 'active' } : state;
    case 'turn.started': {
      const { agentId, agentName } = event.payload;
      return state.agentId === agentId && state.agentName === agentName ? state : { ...state, agentId, agentName };
    }
    case 'session.bound': {
      const { agentId, sessionId, how } = event.payload;
      const before = state.sessions[agentId];
      // A reopened session remembers what it saw; a new one has seen nothing yet.
      // A fork made after a rewind saw what the forked session saw up to the rewind point.
      const reopened = (how !== 'new' && before?.sessionId === sessionId) || (how === 'fork' && before?.forkAt !== undefined);
      const watermark = reopened && before ? before.watermark : 0;
      // What a session was created with stays its own: agents keep it across a reopen (Claude does).
      const sessionDigest = reopened && before ? before.sessionDigest : event.payload.sessionDigest;
      return {
        ...state,
        session: event.payload,
        sessions: { ...state.sessions, [agentId]: { sessionId, how, watermark, ...(sessionDigest ? { sessionDigest } : {}) } },
      };
    }
    case 'turn.ended': {
      // Only max-updates, so folding a tail over the latest context gives the same answer.
      if (event.payload.outcome !== 'completed' && event.payload.outcome !== 'cancelled') {
        return state;
      }
      const own = state.sessions[state.agentId];
      const sessions =
        own && own.watermark < event.seq ? { ...state.sessions, [state.agentId]: { ...own, watermark: event.seq } } : state.sessions;
      const lastTurnEndSeq = Math.max(state.lastTurnEndSeq, event.seq);
      return sessions === state.sessions && lastTurnEndSeq === state.lastTurnEndSeq ? state : { ...state, sessions, lastTurnEndSeq };
    }
    case 'session.commands':
      return { ...state, commands: event.payload.commands };
    case 'session.info':
      return { ...state, sessionTitle: event.payload.title };
    case 'session.options':
      return { ...state, sessionOptions: event.payload.options };
    case 'session.option.chosen': {
      const chosenOptions = { ...state.chosenOptions, [event.payload.optionId]: event.payload.value };
      return {
        ...state,
        chosenOptions,
        chosenByAgent: {
          ...state.chosenByAgent,
          [state.agentId]: { ...state.chosenByAgent[state.agentId], [event.payload.optionId]: event.payload.value },
        },
      };
    }
    case 'usage':
      return {
        ...state,
        usage: event.payload,
        contextSizes:
          state.contextSizes[state.agentId] === event.payload.size
            ? state.contextSizes
            : { ...state.contextSizes, [state.agentId]: event.payload.size },
      };
    case 'toolbox.set':
      return { ...state, toolbox: event.payload };
    case 'injectors.set':
      return { ...state, injectors: event.payload };
    case 'turn.running':
      return state.prompted ? state : { ...state, prompted: true };
    case 'instructions.set':
      return { ...state, instructions: event.payload.text.trim() === '' ? null : event.payload };
    case 'conversation.rewound': {
      const { rewindId, setAside, pointSeq, fork } = event.payload;
      const before = fork ? state.sessions[fork.agentId] : undefined;
      const kept = withoutSessionsPast(
        {
          ...state,
          setAside: { ...state.setAside, ...Object.fromEntries(setAside.map((turnId) => [turnId, rewindId])) },
          rewoundFrom: { ...state.rewoundFrom, [rewindId]: { session: state.session, sessions: state.sessions } },
        },
        pointSeq,
      );
      if (!fork || before?.sessionId !== fork.sessionId) {
        return kept;
      }
      // The session saw the set-aside turns, so it goes on in a copy cut at the rewind point.
      const forkable = { ...before, watermark: fork.watermark, forkAt: fork.messageId };
      const session = state.session?.agentId === fork.agentId ? state.session : kept.session;
      return { ...kept, sessions: { ...kept.sessions, [fork.agentId]: forkable }, session };
    }
    case 'conversation.rewindUndone': {
      // The turns are back, and so are the sessions that saw them (a session made since did not: it is
      // not reused); what came after the rewind reaches them as any missed turns do (their watermark).
      const rewindId = event.payload.rewindId;
      const setAside = Object.fromEntries(Object.entries(state.setAside).filter(([, id]) => id !== rewindId));
      // Only the latest rewind's: an earlier one's sessions never saw the turns a later rewind set aside, nor those did its.
      const latest = Object.keys(state.rewoundFrom).at(-1) === rewindId;
      const { [rewindId]: before, ...rest } = state.rewoundFrom;
      const restored = latest ? before : undefined;
      return {
        ...state,
        setAside,
        sessions: restored?.sessions ?? {},
        session: restored?.session ?? null,
        rewoundFrom: latest ? rest : {},
      };
    }
    case 'agent.switched': {
      // The new agent's own session and choices become the current ones; its options are learnt again when it binds.
      const { toAgentId, toAgentName } = event.payload;
      const own = state.sessions[toAgentId];
      return {
        ...state,
        agentId: toAgentId,
        agentName: toAgentName,
        session: own ? { agentId: toAgentId, sessionId: own.sessionId, how: own.how } : null,
        chosenOptions: state.chosenByAgent[toAgentId] ?? {},
        sessionOptions: [],
        commands: [],
        // The context used was the last agent's: the new one's is shown once it reports it, never the old figure.
        usage: null,
      };
    }
    default:
      return state;
  }
}

/**
 * `state` without the agent sessions that took part in a turn ending after `pointSeq` (they saw
 * turns a rewind set aside): the next turn gets a new session and Baton's handoff instead.
 */
function withoutSessionsPast<T extends ConversationContext>(state: T, pointSeq: number): T {
  const sessions = Object.fromEntries(Object.entries(state.sessions).filter(([, session]) => session.watermark <= pointSeq));
  const session = state.session && sessions[state.session.agentId] ? state.session : null;
  return { ...state, sessions, session };
}
