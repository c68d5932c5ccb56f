/**
 * The building blocks of event payloads: tool calls and their content and states, permission and
 * session options, elicitation forms, token counts, a turn's outcome, and the events a reply (or a
 * subagent's work) is made of. `schemas.ts` puts them together, one payload per event type.
 */
import { z } from 'zod';

/** An event's text field. */
export const eventTextSchema = z.string();
/** An id field of an event (never empty). */
export const eventIdSchema = z.string().min(1);
const text = eventTextSchema;
const id = eventIdSchema;

/** Where a tool call stands. Richer than ACP's: Baton also records permission and cancel states. */
export const toolCallStatusSchema = z.enum([
  'pending',
  'awaiting_permission',
  'in_progress',
  'completed',
  'failed',
  'rejected',
  'cancelled',
]);

/** Content attached to a tool call, kept close to ACP's shape. */
export const toolCallContentSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text }),
  z.object({ type: z.literal('diff'), path: z.string(), oldText: z.string().nullable(), newText: z.string() }),
  z.object({ type: z.literal('terminal'), terminalId: z.string() }),
  z.object({ type: z.literal('other'), summary: z.string() }),
]);

/** One option an agent offers when it asks for permission. */
export const permissionOptionSchema = z.object({
  optionId: id,
  name: z.string(),
  kind: z.enum(['allow_once', 'allow_always', 'reject_once', 'reject_always']),
});

/** One session option an agent offers (model, mode, reasoning…), as a choice among values. */
export const sessionOptionSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  category: z.string().optional(),
  type: z.enum(['select', 'boolean']),
  /** Booleans travel as "true" / "false". */
  currentValue: z.string(),
  /** `selfApproving`: in this mode the agent decides without asking the person. */
  /** `description`: what the agent says of the value (a mode's own words, shown with it). */
  options: z.array(
    z.object({ value: z.string(), name: z.string(), description: z.string().max(500).optional(), selfApproving: z.boolean().optional() }),
  ),
});

/** One field of an elicitation form: the JSON-schema subset ACP allows (primitives and multi-select). */
export const elicitationFieldSchema = z
  .object({
    type: z.string(),
    title: z.string().nullish(),
    description: z.string().nullish(),
    enum: z.array(z.string()).nullish(),
    oneOf: z.array(z.object({ const: z.string(), title: z.string() })).nullish(),
    items: z
      .object({ enum: z.array(z.string()).nullish(), anyOf: z.array(z.object({ const: z.string(), title: z.string() })).nullish() })
      .passthrough()
      .nullish(),
    format: z.string().nullish(),
    minimum: z.number().nullish(),
    maximum: z.number().nullish(),
    minLength: z.number().nullish(),
    maxLength: z.number().nullish(),
    pattern: z.string().nullish(),
    minItems: z.number().nullish(),
    maxItems: z.number().nullish(),
    default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).nullish(),
  })
  .passthrough();

/** An elicitation form's schema. */
export const elicitationSchemaSchema = z.object({
  title: z.string().nullish(),
  description: z.string().nullish(),
  properties: z.record(z.string(), elicitationFieldSchema).optional(),
  required: z.array(z.string()).nullish(),
});

/** Tokens of one turn as an agent reports them (ACP's unstable `usage` on the prompt response). */
export const turnTokensSchema = z.object({
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  totalTokens: z.number().nonnegative().optional(),
  cachedReadTokens: z.number().nonnegative().optional(),
  cachedWriteTokens: z.number().nonnegative().optional(),
  thoughtTokens: z.number().nonnegative().optional(),
});
export type TurnTokens = z.infer<typeof turnTokensSchema>;

/** How a turn ended. */
export const turnOutcomeSchema = z.enum(['completed', 'cancelled', 'failed', 'interrupted']);

export const messageChunkSchema = z.object({ turnId: id, messageId: z.string().optional(), text });
export const thoughtChunkSchema = z.object({ turnId: id, text });
export const toolCallSchema = z.object({
  turnId: id,
  toolCallId: id,
  title: z.string(),
  kind: z.string().optional(),
  status: toolCallStatusSchema,
  content: z.array(toolCallContentSchema).optional(),
  /** What the agent passed the tool (its arguments, a command), as it reported it; redacted like other recorded text. */
  rawInput: z.unknown().optional(),
});
export const toolUpdatedSchema = z.object({
  turnId: id,
  toolCallId: id,
  title: z.string().optional(),
  status: toolCallStatusSchema.optional(),
  content: z.array(toolCallContentSchema).optional(),
  rawInput: z.unknown().optional(),
});
export const planSchema = z.object({
  turnId: id,
  entries: z.array(z.object({ content: z.string(), status: z.string(), priority: z.string() })),
});

/** What a subagent's work is made of: the same events as a reply's. */
export const subagentActivitySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message.chunk'), payload: messageChunkSchema }),
  z.object({ type: z.literal('thought.chunk'), payload: thoughtChunkSchema }),
  z.object({ type: z.literal('tool.call'), payload: toolCallSchema }),
  z.object({ type: z.literal('tool.updated'), payload: toolUpdatedSchema }),
  z.object({ type: z.literal('plan'), payload: planSchema }),
]);
