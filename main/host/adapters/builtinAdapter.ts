/** Shared shape of the built-in adapters: an npm-distributed ACP agent launched by name. */
import type { AgentAdapter } from './AgentAdapter.js';

/** Builds a built-in adapter; agent files add their own quirks on top. */
export function builtinAdapter(
  fields: Pick<AgentAdapter, 'agentId' | 'displayName' | 'command' | 'args'> & { npmPackage: string } & Partial<AgentAdapter>,
): AgentAdapter {
  const { npmPackage, ...adapter } = fields;
  return { source: 'builtin', installHint: `Install it with: npm i -g ${npmPackage}`, ...adapter };
}
