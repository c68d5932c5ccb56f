/**
 * The host API contract: every request the renderer can make and every event the host pushes,
 * each with a zod schema, split by domain (one file per group of requests, `wire.ts` for pushed
 * events and frames) behind this one index. Both transports (Electron IPC, WebSocket) carry
 * exactly these messages and parse them at the boundary in both directions.
 */
import type { z } from 'zod';
import { agentRequests } from './agentRequests.js';
import { attemptRequests } from './attemptRequests.js';
import { conversationRequests } from './conversationRequests.js';
import { historyRequests } from './historyRequests.js';
import { hostRequests } from './hostRequests.js';
import { instructionRequests } from './instructionRequests.js';
import { machineRequests } from './machineRequests.js';
import { toolboxRequests } from './toolboxRequests.js';

export {
  agentProcessSchema,
  agentSessionSchema,
  processSharingSchema,
  registryStatusSchema,
  type AgentProcess,
  type AgentSession,
  type ProcessSharing,
  type RegistryStatus,
} from './agentRequests.js';
export { MAX_EVENTS_PER_PAGE } from './conversationRequests.js';
export { preferenceKeySchema } from './hostRequests.js';
export {
  importReviewSchema,
  listCursorSchema,
  MAX_IMPORT_CHARS,
  searchHitSchema,
  type ImportReview,
  type SearchHit,
} from './historyRequests.js';
export { instructionPreviewSchema, type InstructionPreview } from './instructionRequests.js';
export { machineSchema, thisComputerInfo, type MachineInfo } from './machineRequests.js';
export { importCandidateSchema, type ImportCandidate } from './toolboxRequests.js';
export * from './wire.js';

/** Requests by method name: params and result schemas. */
export const requests = {
  ...hostRequests,
  ...agentRequests,
  ...historyRequests,
  ...conversationRequests,
  ...toolboxRequests,
  ...instructionRequests,
  ...attemptRequests,
  ...machineRequests,
} as const;

/** A host API method name. */
export type Method = keyof typeof requests;
/** One of the page's preferences the host keeps. */
export type PreferenceKey = Params<'setPreference'>['key'];
/** Params of a method. */
export type Params<M extends Method> = z.infer<(typeof requests)[M]['params']>;
/** Result of a method. */
export type Result<M extends Method> = z.infer<(typeof requests)[M]['result']>;

/** True when `name` is a method of the contract. */
export function isMethod(name: string): name is Method {
  return Object.prototype.hasOwnProperty.call(requests, name);
}

/**
 * Requests whose one text parameter is a file the person chose: each method with the name of that
 * parameter. A transport may carry the file as it is (the web host takes it as an upload, not as
 * a string inside a JSON frame); the host then handles the request like any other.
 */
export const fileRequests = { importConversation: 'content' } as const satisfies Partial<Record<Method, string>>;
/** A method of {@link fileRequests}. */
export type FileMethod = keyof typeof fileRequests;

/** True when `name` is a method of {@link fileRequests}. */
export function isFileMethod(name: string): name is FileMethod {
  return Object.prototype.hasOwnProperty.call(fileRequests, name);
}

/** Where the web host takes a file request: `POST /api/upload/<method>`. */
export const UPLOAD_PATH = '/api/upload/';

/** The params of a file request, the file's text in its parameter. */
export function fileParams<M extends FileMethod>(method: M, text: string): Params<M> {
  return { [fileRequests[method]]: text } as Params<M>;
}
