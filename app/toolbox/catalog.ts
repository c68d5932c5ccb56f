/**
 * The toolbox catalog as the host keeps it and the page sees it: MCP servers (ACP's shape plus a
 * name, a description and where each came from) whose secret values never leave the host, and
 * named toolboxes that group them. Pure: the host encrypts, stores and resolves.
 */
import { z } from 'zod';

/** How a server is reached. */
export const transportSchema = z.enum(['stdio', 'http', 'sse']);
/** One of {@link transportSchema}. */
export type Transport = z.infer<typeof transportSchema>;

/**
 * The variable syntax a stored value may use, kept as written and resolved when a session is
 * prepared: Claude Code's `${VAR}` / `${VAR:-default}`, Cursor's and VS Code's `${env:NAME}`,
 * Gemini's `$VAR` / `${VAR}`. "none": values are literal.
 */
export const variableSyntaxSchema = z.enum(['none', 'claude', 'cursor', 'vscode', 'windsurf', 'gemini']);
/** One of {@link variableSyntaxSchema}. */
export type VariableSyntax = z.infer<typeof variableSyntaxSchema>;

/** Where a server came from. */
export const serverOriginSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('baton') }),
  z.object({ kind: z.literal('import'), dialect: z.string(), file: z.string(), key: z.string() }),
]);
/** One of {@link serverOriginSchema}. */
export type ServerOrigin = z.infer<typeof serverOriginSchema>;

/** An environment variable or header as the page sees it: a secret shows only that it is set. */
export const shownEntrySchema = z.object({ name: z.string().min(1), value: z.string().optional(), secret: z.boolean() });

/** An environment variable or header as the page sends it to be saved (a secret's value goes to the host once). */
export const entryInputSchema = z.object({
  name: z.string().trim().min(1).max(200),
  value: z.string().max(100_000),
  secret: z.boolean(),
  /** When a server is edited: a secret left as it is (its value stays sealed in the host; `value` is empty). */
  keep: z.boolean().optional(),
});
/** One of {@link entryInputSchema}. */
export type EntryInput = z.infer<typeof entryInputSchema>;

/** A catalog server as the page sees it. */
export const catalogServerSchema = z.object({
  serverId: z.string(),
  name: z.string(),
  description: z.string(),
  transport: transportSchema,
  command: z.string().optional(),
  args: z.array(z.string()),
  url: z.string().optional(),
  env: z.array(shownEntrySchema),
  headers: z.array(shownEntrySchema),
  variables: variableSyntaxSchema,
  origin: serverOriginSchema,
  /** An SSE or HTTP server the person chose to run through Baton's local stdio bridge. */
  bridge: z.boolean(),
});
/** One of {@link catalogServerSchema}. */
export type CatalogServer = z.infer<typeof catalogServerSchema>;

/** What the page sends to add a server. */
export const serverInputSchema = z
  .object({
    name: z.string().trim().min(1, 'A server needs a name.').max(100),
    description: z.string().max(2_000).default(''),
    transport: transportSchema,
    command: z.string().trim().max(4_000).optional(),
    args: z.array(z.string().max(4_000)).max(200).default([]),
    url: z.string().trim().max(4_000).optional(),
    env: z.array(entryInputSchema).max(200).default([]),
    headers: z.array(entryInputSchema).max(200).default([]),
    variables: variableSyntaxSchema.default('none'),
    bridge: z.boolean().default(false),
  })
  .superRefine((input, context) => {
    if (input.transport === 'stdio' && !input.command) {
      context.addIssue({ code: 'custom', path: ['command'], message: 'A stdio server needs the command that starts it.' });
    }
    if (input.transport !== 'stdio' && !/^https?:\/\/\S+$/.test(input.url ?? '')) {
      context.addIssue({ code: 'custom', path: ['url'], message: `An ${input.transport} server needs an http(s) URL.` });
    }
  });
/** One of {@link serverInputSchema}. */
export type ServerInput = z.input<typeof serverInputSchema>;

/** A named group of servers. */
export const toolboxSchema = z.object({ toolboxId: z.string(), name: z.string(), serverIds: z.array(z.string()), isDefault: z.boolean() });
/** One of {@link toolboxSchema}. */
export type Toolbox = z.infer<typeof toolboxSchema>;

/** A conversation's choice, as the transcript records it: names and a digest, never a value. */
export const toolboxChoiceSchema = z.object({
  servers: z.array(z.object({ serverId: z.string(), name: z.string(), transport: transportSchema })),
  /** sha256 of the resolved set with secret values left out (their ids stand in). */
  digest: z.string(),
});
/** One of {@link toolboxChoiceSchema}. */
export type ToolboxChoice = z.infer<typeof toolboxChoiceSchema>;

/** Names whose values are secrets unless the person says otherwise (imports mark them secret). */
export function looksSecret(name: string): boolean {
  return /^authorization$/i.test(name) || /(^|[-_])(TOKEN|KEY|SECRET|PASSWORD)$/i.test(name);
}
