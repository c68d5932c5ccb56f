/** The catalog projection: one summary row per conversation, folded from the same events. */
import { z } from 'zod';
import { LOCAL_MACHINE_ID } from '../ids.js';
import { plainText } from '../text/plainText.js';
import { isUnknownEvent, type TranscriptEvent, type UnknownEvent } from '../events/index.js';

/** What the conversation list shows for one conversation. */
export const conversationSummarySchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  /**
   * Where the title came from: given when it was created, made from the first message, the agent's
   * own session title, or the person's rename (which nothing replaces). Absent in rows written
   * before it was kept: such a title is left as it is.
   */
  titleFrom: z.enum(['created', 'message', 'agent', 'person']).optional(),
  /** The agent now serving the conversation. */
  agentId: z.string(),
  agentName: z.string(),
  /** Every agent that has served it, oldest first (the list's badges). */
  agents: z.array(z.object({ agentId: z.string(), agentName: z.string() })),
  cwd: z.string(),
  /** The machine `cwd` is on (rows written before machines: this computer). */
  machine: z.string().default(LOCAL_MACHINE_ID),
  createdAt: z.string(),
  updatedAt: z.string(),
  turnCount: z.number().int().nonnegative(),
  lastSeq: z.number().int().nonnegative(),
  /** The start of the person's latest message. */
  preview: z.string(),
  running: z.boolean(),
  /** Permission questions waiting for the person's answer (the list badges them). */
  pendingPermissions: z.number().int().nonnegative().default(0),
  /** Its last turn failed or was refused (the list marks it until the next message). */
  lastTurnFailed: z.boolean().default(false),
  /** `attempt`: one attempt of several asked at once, shown inside the conversation that asked (not in the list) until continued. */
  lifecycle: z.enum(['active', 'archived', 'deleted', 'attempt']),
  /** For an attempt: the conversation that asked, and which attempt this is. */
  attemptOf: z
    .object({ conversationId: z.string(), attemptsId: z.string(), attemptId: z.string(), fromSeq: z.number().int().nonnegative() })
    .optional(),
  /** The conversation this one is a branch of (the list says "Branched from <title>"). */
  branchedFrom: z.object({ conversationId: z.string(), title: z.string() }).optional(),
  /** When it was deleted (tombstoned), for the trash and its undo. */
  deletedAt: z.string().nullable(),
});

/** What the conversation list shows for one conversation. */
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

const PREVIEW_LENGTH = 140;
const TITLE_LENGTH = 60;

/** A title made from the first message: its first line, shortened at a word. */
export function titleFromMessage(text: string): string {
  const line = plainText(text).trim().split('\n')[0]?.trim() ?? '';
  if (line.length <= TITLE_LENGTH) {
    return line || 'New conversation';
  }
  const cut = line.slice(0, TITLE_LENGTH);
  const space = cut.lastIndexOf(' ');
  return `${(space > 20 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function withAgent(agents: ConversationSummary['agents'], agentId: string, agentName: string): ConversationSummary['agents'] {
  return agents.some((agent) => agent.agentId === agentId) ? agents : [...agents, { agentId, agentName }];
}

/** Folds one event into the conversation's summary (undefined before `conversation.created`). */
export function summarize(
  summary: ConversationSummary | undefined,
  event: TranscriptEvent | UnknownEvent,
): ConversationSummary | undefined {
  if (isUnknownEvent(event)) {
    return summary && { ...summary, lastSeq: event.seq };
  }
  if (event.type === 'conversation.created') {
    const { title, agentId, agentName, cwd, machine } = event.payload;
    return {
      conversationId: event.conversationId,
      title,
      titleFrom: 'created',
      agentId,
      agentName,
      agents: [{ agentId, agentName }],
      cwd,
      machine: machine ?? LOCAL_MACHINE_ID,
      createdAt: event.at,
      updatedAt: event.at,
      turnCount: 0,
      lastSeq: event.seq,
      preview: '',
      running: false,
      pendingPermissions: 0,
      lastTurnFailed: false,
      lifecycle: 'active',
      deletedAt: null,
    };
  }
  if (!summary) {
    return undefined;
  }
  // One copy per event: this runs for every streamed chunk.
  const lastSeq = event.seq;
  switch (event.type) {
    case 'conversation.renamed':
      return { ...summary, lastSeq, title: event.payload.title, titleFrom: 'person' };
    case 'session.info': {
      // The agent's own title for its session replaces one Baton made, never the person's; and only
      // while the conversation has had that one agent: a session that took over after a handoff saw
      // only the rest of it (Codex titles its thread by the first message it was sent).
      const title = event.payload.title?.trim();
      const replaceable =
        summary.agents.length <= 1 && (summary.titleFrom === 'message' || (summary.titleFrom === 'created' && summary.title === ''));
      return title && replaceable
        ? { ...summary, lastSeq, updatedAt: event.at, title: titleFromMessage(title), titleFrom: 'agent' }
        : { ...summary, lastSeq, updatedAt: event.at };
    }
    // Filing a conversation away is not activity: it keeps its place in time.
    case 'conversation.archived':
      return { ...summary, lastSeq, lifecycle: 'archived' };
    case 'conversation.unarchived':
      return { ...summary, lastSeq, lifecycle: 'active' };
    case 'conversation.deleted':
      return { ...summary, lastSeq, lifecycle: 'deleted', deletedAt: event.at };
    case 'conversation.restored':
      return { ...summary, lastSeq, lifecycle: 'active', deletedAt: null };
    case 'conversation.branched':
      // An attempt continued as a branch joins the list.
      return {
        ...summary,
        lastSeq,
        branchedFrom: { conversationId: event.payload.fromConversationId, title: event.payload.fromTitle },
        ...(summary.lifecycle === 'attempt' ? { lifecycle: 'active' as const, updatedAt: event.at } : {}),
      };
    case 'conversation.attempt': {
      const { ofConversationId, attemptsId, attemptId, fromSeq } = event.payload;
      return { ...summary, lastSeq, lifecycle: 'attempt', attemptOf: { conversationId: ofConversationId, attemptsId, attemptId, fromSeq } };
    }
    case 'turn.started': {
      const { agentId, agentName, text } = event.payload;
      return {
        ...summary,
        lastSeq,
        updatedAt: event.at,
        ...(summary.turnCount === 0 && summary.title === '' ? { title: titleFromMessage(text), titleFrom: 'message' as const } : {}),
        agentId,
        agentName,
        agents: withAgent(summary.agents, agentId, agentName),
        turnCount: summary.turnCount + 1,
        preview: text.slice(0, PREVIEW_LENGTH),
        running: true,
        lastTurnFailed: false,
      };
    }
    case 'attempts.started':
      // Several agents asked first: the conversation is named by that message, as by a first turn.
      return {
        ...summary,
        lastSeq,
        updatedAt: event.at,
        ...(summary.turnCount === 0 && summary.title === ''
          ? {
              title: titleFromMessage(event.payload.text),
              titleFrom: 'message' as const,
              preview: event.payload.text.slice(0, PREVIEW_LENGTH),
            }
          : {}),
      };
    case 'agent.switched': {
      const { toAgentId, toAgentName } = event.payload;
      return {
        ...summary,
        lastSeq,
        updatedAt: event.at,
        agentId: toAgentId,
        agentName: toAgentName,
        agents: withAgent(summary.agents, toAgentId, toAgentName),
      };
    }
    case 'turn.ended':
      return {
        ...summary,
        lastSeq,
        updatedAt: event.at,
        running: false,
        pendingPermissions: 0,
        lastTurnFailed: event.payload.outcome === 'failed',
      };
    case 'permission.requested':
      return { ...summary, lastSeq, updatedAt: event.at, pendingPermissions: summary.pendingPermissions + 1 };
    case 'permission.decided':
      return { ...summary, lastSeq, updatedAt: event.at, pendingPermissions: Math.max(0, summary.pendingPermissions - 1) };
    default:
      // A change of settings is not activity: the list keeps its order.
      return SETTINGS_TYPES.has(event.type) ? { ...summary, lastSeq } : { ...summary, lastSeq, updatedAt: event.at };
  }
}

/** Settings of a conversation (its toolbox, instructions, injectors, an option the person chose): recorded, but not activity. */
const SETTINGS_TYPES = new Set<string>(['toolbox.set', 'instructions.set', 'injectors.set', 'session.option.chosen', 'binding.changed']);

/** Event types that shape a summary beyond marking activity (lastSeq, updatedAt); the others only mark it. */
const SHAPING_TYPES = new Set<string>([
  'conversation.created',
  'conversation.renamed',
  'conversation.archived',
  'conversation.unarchived',
  'conversation.deleted',
  'conversation.restored',
  'conversation.branched',
  'conversation.attempt',
  'attempts.started',
  'turn.started',
  'agent.switched',
  'turn.ended',
  'permission.requested',
  'permission.decided',
  'session.info',
]);

/**
 * Folds a batch of events, as {@link summarize} one by one would, but copies the summary once per
 * run of plain activity (streamed chunks) instead of once per event.
 */
export function summarizeAll(
  summary: ConversationSummary | undefined,
  events: ReadonlyArray<TranscriptEvent | UnknownEvent>,
): ConversationSummary | undefined {
  let current = summary;
  let activity: { lastSeq: number; updatedAt: string } | undefined;
  for (const event of events) {
    if (current && !isUnknownEvent(event) && !SHAPING_TYPES.has(event.type)) {
      activity = { lastSeq: event.seq, updatedAt: SETTINGS_TYPES.has(event.type) ? (activity?.updatedAt ?? current.updatedAt) : event.at };
      continue;
    }
    if (current && activity) {
      current = { ...current, ...activity };
      activity = undefined;
    }
    current = summarize(current, event);
  }
  return current && activity ? { ...current, ...activity } : current;
}
