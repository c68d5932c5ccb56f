/**
 * Custom ACP agents from `agents.json` in the data folder, in Baton's shape
 * `{ "agents": [ { "name": "…", "command": "…", "args": [], "env": {} } ] }` or in Zed's
 * `{ "agent_servers": { "Name": { "command": "…", "args": [], "env": {} } } }` (a Zed settings file
 * can be copied in as it is: comments and trailing commas are fine). A bad file never stops
 * Baton: it is reported as an unavailable entry that says what is wrong.
 */
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import { readDataText } from '../store/dataFiles.js';

const customAgentSchema = z.object({
  name: z.string().trim().min(1),
  command: z.string().trim().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  /**
   * The agent writes the MCP servers it is given, values included, where others can read them (a
   * command line, as claude-agent-acp does): servers holding secrets reach it through Baton's launcher.
   */
  exposesServerConfig: z.boolean().default(false),
});

const zedServerSchema = z.object({
  type: z.string().optional(),
  command: z.string().trim().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
});

const agentsFileSchema = z
  .object({ agents: z.array(customAgentSchema).optional(), agent_servers: z.record(z.string(), z.unknown()).optional() })
  .refine((file) => file.agents !== undefined || file.agent_servers !== undefined, {
    message: 'expected "agents" (a list) or "agent_servers" (Zed\'s settings shape)',
  });

/** What reading `agents.json` produced. */
export type CustomAgentsResult = { adapters: AgentAdapter[]; problem: string | undefined };

/** Reads custom agents; a missing file is no agents, a bad one is a problem with its reason. */
export function readCustomAgents(file: string): CustomAgentsResult {
  let text: string;
  try {
    text = readDataText(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { adapters: [], problem: undefined };
    }
    return { adapters: [], problem: `${file} could not be read: ${(error as Error).message}` };
  }
  const errors: ParseError[] = [];
  const json: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  const firstError = errors[0];
  if (firstError) {
    const before = text.slice(0, firstError.offset).split('\n');
    const where = `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
    return { adapters: [], problem: `${file} is not valid JSON: ${printParseErrorCode(firstError.error)} at ${where}` };
  }
  const parsed = agentsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { adapters: [], problem: `${file}: ${issue ? `${issue.path.join('.') || 'file'}: ${issue.message}` : 'invalid'}` };
  }
  const fromZed = Object.entries(parsed.data.agent_servers ?? {}).flatMap(([name, server]) => {
    const entry = zedServerSchema.safeParse(server);
    // Zed's own extension agents (no command) are Zed's business; only commands can be run here.
    return entry.success && (entry.data.type === undefined || entry.data.type === 'custom')
      ? [{ name, command: entry.data.command, args: entry.data.args, env: entry.data.env, exposesServerConfig: false }]
      : [];
  });
  const seen = new Set<string>();
  const adapters = [...(parsed.data.agents ?? []), ...fromZed].map((agent): AgentAdapter => {
    let agentId = `custom:${slug(agent.name)}`;
    for (let index = 2; seen.has(agentId); index += 1) {
      agentId = `custom:${slug(agent.name)}-${index}`;
    }
    seen.add(agentId);
    // Their instruction channels are whatever they advertise at initialize (see deliverInstructions.ts).
    return {
      agentId,
      displayName: agent.name,
      source: 'custom',
      command: agent.command,
      args: agent.args,
      env: agent.env,
      instructions: { capability: 'negotiated' },
      ...(agent.exposesServerConfig ? { exposesServerConfig: true } : {}),
    };
  });
  return { adapters, problem: undefined };
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'agent'
  );
}
