/**
 * Custom ACP agents from `agents.json` in the data folder:
 * `{ "agents": [ { "name": "…", "command": "…", "args": [], "env": {} } ] }`.
 * A bad file never stops Baton: it is reported as an unavailable entry that says what is wrong.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { AgentAdapter } from './AgentAdapter.js';

const customAgentSchema = z.object({
  name: z.string().trim().min(1),
  command: z.string().trim().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
});

const agentsFileSchema = z.object({ agents: z.array(customAgentSchema) });

/** What reading `agents.json` produced. */
export type CustomAgentsResult = { adapters: AgentAdapter[]; problem: string | undefined };

/** Reads custom agents; a missing file is no agents, a bad one is a problem with its reason. */
export function readCustomAgents(file: string): CustomAgentsResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { adapters: [], problem: undefined };
    }
    return { adapters: [], problem: `${file} could not be read: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { adapters: [], problem: `${file} is not valid JSON: ${(error as Error).message}` };
  }
  const parsed = agentsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { adapters: [], problem: `${file}: ${issue ? `${issue.path.join('.') || 'file'}: ${issue.message}` : 'invalid'}` };
  }
  const seen = new Set<string>();
  const adapters = parsed.data.agents.map((agent): AgentAdapter => {
    let agentId = `custom:${slug(agent.name)}`;
    for (let index = 2; seen.has(agentId); index += 1) {
      agentId = `custom:${slug(agent.name)}-${index}`;
    }
    seen.add(agentId);
    return { agentId, displayName: agent.name, source: 'custom', command: agent.command, args: agent.args, env: agent.env };
  });
  return { adapters, problem: undefined };
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'agent';
}
