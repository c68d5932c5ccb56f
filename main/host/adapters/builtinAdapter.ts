/** Shared shape of the built-in adapters: an npm-distributed ACP agent launched by name. */
import type { AgentAdapter } from './AgentAdapter.js';

/** The package name of an npm spec ("@scope/name@1.2.3" → "@scope/name"). */
export function packageName(spec: string): string {
  const at = spec.lastIndexOf('@');
  return at > 0 ? spec.slice(0, at) : spec;
}

/** Builds a built-in adapter; agent files add their own quirks on top. */
export function builtinAdapter(
  fields: Pick<AgentAdapter, 'agentId' | 'displayName' | 'command' | 'args'> & { npmPackages: readonly string[] } & Partial<AgentAdapter>,
): AgentAdapter {
  return { source: 'builtin', installHint: `Install it with: npm i -g ${fields.npmPackages.map(packageName).join(' ')}`, ...fields };
}
