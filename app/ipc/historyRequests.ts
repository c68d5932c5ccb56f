/** Requests about the history: the list, rename, archive, delete and restore, erase, search, export and import. */
import { z } from 'zod';
import { conversationSummarySchema } from '../transcript/summary.js';
import { conversationId, conversationResult } from './common.js';

/**
 * What an imported conversation brings: its folder (and whether it is as broad as / or the home folder), instructions, injectors and
 * toolbox.
 */
export const importReviewSchema = z.object({
  cwd: z.string(),
  /** The folder is `/`, the home folder itself, or holds it: an agent there can reach nearly everything. */
  broadFolder: z.boolean(),
  instructions: z.object({ text: z.string(), intent: z.enum(['append', 'replace']) }).nullable(),
  injectors: z.array(z.string()),
  servers: z.array(z.string()),
});
/** One of {@link importReviewSchema}. */
export type ImportReview = z.infer<typeof importReviewSchema>;

/** Keyset cursor of the conversation list: the last row of the previous page. */
export const listCursorSchema = z.object({ updatedAt: z.string(), conversationId: z.string() });

/** One search result; `snippet` marks matched words with \u0002 … \u0003. */
export const searchHitSchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  seq: z.number().int(),
  role: z.enum(['user', 'agent']),
  agentId: z.string(),
  at: z.string(),
  snippet: z.string(),
});

/** One search result. */
export type SearchHit = z.infer<typeof searchHitSchema>;

/** Largest transcript file accepted for import. */
export const MAX_IMPORT_CHARS = 256 * 1024 * 1024;

/** The history's requests of the host API contract. */
export const historyRequests = {
  /** A page of the list, most recent activity first. */
  listConversations: {
    params: z.object({
      lifecycle: z.enum(['active', 'archived', 'deleted']).optional(),
      before: listCursorSchema.optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    }),
    result: z.object({ conversations: z.array(conversationSummarySchema), nextCursor: listCursorSchema.nullable() }),
  },
  renameConversation: {
    params: z.object({ conversationId, title: z.string().trim().min(1).max(200) }),
    result: conversationResult,
  },
  setArchived: {
    params: z.object({ conversationId, archived: z.boolean() }),
    result: conversationResult,
  },
  /** A tombstone: the conversation leaves the list and search until restored. */
  deleteConversation: {
    params: z.object({ conversationId }),
    result: conversationResult,
  },
  restoreConversation: {
    params: z.object({ conversationId }),
    result: conversationResult,
  },
  /** Erases a deleted conversation for good. */
  purgeConversation: {
    params: z.object({ conversationId }),
    result: z.object({}),
  },
  searchConversations: {
    params: z.object({
      text: z.string().max(500),
      agentId: z.string().optional(),
      from: z.string().optional(),
      to: z.string().optional(),
      limit: z.number().int().min(1).max(200).optional(),
    }),
    result: z.object({ results: z.array(searchHitSchema) }),
  },
  exportConversation: {
    params: z.object({ conversationId, format: z.enum(['markdown', 'jsonl']) }),
    result: z.object({ fileName: z.string(), mimeType: z.string(), content: z.string() }),
  },
  /** Every conversation not in the trash, newest first, as one Markdown document. */
  exportAllConversations: {
    params: z.object({}),
    result: z.object({ fileName: z.string(), mimeType: z.string(), content: z.string(), count: z.number().int().nonnegative() }),
  },
  /** Stores an exported JSONL transcript as a new conversation. */
  importConversation: {
    params: z.object({ content: z.string().min(1).max(MAX_IMPORT_CHARS) }),
    result: conversationResult,
  },
  /** What an imported conversation brings, for the person to confirm before any of it reaches an agent (null: nothing to confirm). */
  getImportReview: {
    params: z.object({ conversationId }),
    result: z.object({ review: importReviewSchema.nullable() }),
  },
  /** The person confirmed the imported conversation's folder (it must be the one shown) and what it brings. */
  confirmImport: {
    params: z.object({ conversationId, cwd: z.string().min(1) }),
    result: z.object({}),
  },
} as const;
