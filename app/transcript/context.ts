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

/** The wire and storage form of a {@link ConversationContext}. */
export const conversationContextSchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  cwd: z.string(),
  createdAt: z.string(),
  lifecycle: z.enum(['active', 'archived', 'deleted']),
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
  };
}

/** The context fields of a larger state (a whole transcript). */
export function contextOf(state: ConversationContext): ConversationContext {
  const { conversationId, title, agentId, agentName, cwd, createdAt, lifecycle, session, usage, sessionOptions, commands, sessionTitle, chosenOptions, instructions, toolbox, injectors, prompted } = state;
  return { conversationId, title, agentId, agentName, cwd, createdAt, lifecycle, session, usage, sessionOptions, commands, sessionTitle, chosenOptions, instructions, toolbox, injectors, prompted };
}

/**
 * Folds one event into the context part of `state` (a context, or a whole transcript that
 * contains one). Returns `state` itself when the event does not touch the context.
 */
export function reduceContext<T extends ConversationContext>(state: T, event: TranscriptEvent): T {
  switch (event.type) {
    case 'conversation.created': {
      const { title, agentId, agentName, cwd } = event.payload;
      return { ...state, title, agentId, agentName, cwd, createdAt: event.at };
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
    case 'turn.started': {
      const { agentId, agentName } = event.payload;
      return state.agentId === agentId && state.agentName === agentName ? state : { ...state, agentId, agentName };
    }
    case 'session.bound':
      return { ...state, session: event.payload };
    case 'session.commands':
      return { ...state, commands: event.payload.commands };
    case 'session.info':
      return { ...state, sessionTitle: event.payload.title };
    case 'session.options':
      return { ...state, sessionOptions: event.payload.options };
    case 'session.option.chosen':
      return { ...state, chosenOptions: { ...state.chosenOptions, [event.payload.optionId]: event.payload.value } };
    case 'usage':
      return { ...state, usage: event.payload };
    case 'toolbox.set':
      return { ...state, toolbox: event.payload };
    case 'injectors.set':
      return { ...state, injectors: event.payload };
    case 'turn.running':
      return state.prompted ? state : { ...state, prompted: true };
    case 'instructions.set':
      return { ...state, instructions: event.payload.text.trim() === '' ? null : event.payload };
    case 'agent.switched':
      return { ...state, agentId: event.payload.toAgentId, agentName: event.payload.toAgentName, session: null };
    default:
      return state;
  }
}
