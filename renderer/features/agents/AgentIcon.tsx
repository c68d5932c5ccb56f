/**
 * An agent's icon: the registry's SVG as an image (a data URL the host checked; never inserted as
 * markup, so nothing in it can run), or the first letter of its name on a tile.
 */
import type { AgentInfo } from '../../../app/agents/agentInfo.js';

/** The icon, 16 px; decorative (the agent's name is always beside it). */
export function AgentIcon({ agent }: { agent: Pick<AgentInfo, 'displayName' | 'icon'> }) {
  if (agent.icon?.startsWith('data:image/svg+xml;base64,')) {
    return <img className="agent-icon" src={agent.icon} alt="" width={16} height={16} />;
  }
  return (
    <span className="agent-icon letter" aria-hidden="true">
      {agent.displayName.slice(0, 1).toUpperCase()}
    </span>
  );
}
