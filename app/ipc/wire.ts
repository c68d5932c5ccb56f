/** What the host pushes (events by name) and the frames both transports carry, parsed at the boundary. */
import { z } from 'zod';
import { wireErrorSchema } from '../errors.js';
import { envelopeSchema } from '../events/index.js';
import { conversationSummarySchema } from '../transcript/summary.js';
import { agentListSchema } from './agentRequests.js';
import { machineSchema } from './machineRequests.js';

/** Events the host pushes, by name. */
export const pushEvents = {
  /** The events of one commit, in order, pushed only after they are committed (a streamed group is one push). */
  transcript: z.object({ events: z.array(envelopeSchema).min(1) }),
  /** A conversation's summary changed (new, renamed, new turn, turn ended, archived, deleted). */
  conversationChanged: z.object({ conversation: conversationSummarySchema }),
  /** A conversation was erased for good. */
  conversationRemoved: z.object({ conversationId: z.string() }),
  /** Output of a log-in terminal, then how it ended (exit code 0: logged in). */
  loginTerminal: z.object({
    terminalId: z.string(),
    agentId: z.string(),
    data: z.string().optional(),
    exit: z.object({ code: z.number().int().nullable(), signal: z.string().nullable() }).optional(),
  }),
  /** A line of progress from installing, updating or removing an agent. */
  agentInstallProgress: z.object({ agentId: z.string(), action: z.enum(['install', 'update', 'remove']), text: z.string() }),
  /** The agent list changed without being asked (agents.json written, fixed or removed): the list as listAgents answers it. */
  agentsChanged: agentListSchema,
  /** A machine's state changed (connecting, connected, reconnecting, blocked), or it was added. */
  machineChanged: z.object({ machine: machineSchema }),
  /** Something failed that could not be recorded in the transcript (the store itself failed). */
  hostError: z.object({ conversationId: z.string().optional(), error: wireErrorSchema }),
} as const;

/** A pushed event name. */
export type PushEventName = keyof typeof pushEvents;

/** A pushed event, as a tagged union. */
export type PushEvent = { [N in PushEventName]: { name: N; payload: z.infer<(typeof pushEvents)[N]> } }[PushEventName];

/** The wire messages of the WebSocket transport (Electron IPC carries the same request/response pairs). */
export const clientMessageSchema = z.object({
  kind: z.literal('request'),
  id: z.number().int().nonnegative(),
  method: z.string(),
  params: z.unknown(),
});

/** A response or event frame from the host. */
export const hostMessageSchema = z.union([
  z.object({ kind: z.literal('response'), id: z.number().int().nullable(), ok: z.literal(true), result: z.unknown() }),
  z.object({ kind: z.literal('response'), id: z.number().int().nullable(), ok: z.literal(false), error: wireErrorSchema }),
  z.object({ kind: z.literal('event'), name: z.string(), payload: z.unknown() }),
]);

/** A response or event frame from the host. */
export type HostMessage = z.infer<typeof hostMessageSchema>;

/** The outcome of one request as both transports carry it. */
export const responseBodySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: wireErrorSchema }),
]);

/** The outcome of one request as both transports carry it. */
export type ResponseBody = z.infer<typeof responseBodySchema>;

/** Parses a pushed event by name; unknown names or bad payloads come back undefined. */
export function parsePushEvent(name: string, payload: unknown): PushEvent | undefined {
  if (!Object.prototype.hasOwnProperty.call(pushEvents, name)) {
    return undefined;
  }
  const schema = pushEvents[name as PushEventName];
  const parsed = schema.safeParse(payload);
  return parsed.success ? ({ name, payload: parsed.data } as PushEvent) : undefined;
}
