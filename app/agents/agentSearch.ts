/** Finding agents by what a person types in the Agent picker. */
import type { AgentInfo } from './agentInfo.js';

/** True when every word typed is in the agent's name, description, registry id or command. */
export function agentMatches(agent: Pick<AgentInfo, 'displayName' | 'description' | 'registry' | 'command'>, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = [agent.displayName, agent.description ?? '', agent.registry?.id ?? '', agent.command].join(' ').toLowerCase();
  return words.every((word) => haystack.includes(word));
}
