/**
 * Settings › Agents: every agent Baton knows, whether it can run and why not, installing and
 * removing the ones Baton manages, and on request its capability card and log-in methods (the
 * card starts the agent once, so it is not read for every agent on opening), and the agent
 * processes running.
 */
import { useState } from 'react';
import type { AgentInfo } from '../../../app/agents/agentInfo.js';
import { useBaton } from '../../store/index.js';
import { AgentCard } from '../chat/AgentCard.js';
import { InstallAction, ManagedAgent } from '../chat/AgentInstall.js';
import { LogInPrompt } from '../chat/LogInPrompt.js';
import { AgentProcessTable } from './AgentProcessTable.js';

/** The catalog. */
export function AgentsSettings() {
  const agents = useBaton((state) => state.agents);
  return (
    <>
      <h2>Agents</h2>
      <ul className="settings-agents" aria-label="Agents">
        {agents.map((agent) => (
          <AgentEntry key={agent.agentId} agent={agent} />
        ))}
      </ul>
      <AgentProcessTable />
    </>
  );
}

function AgentEntry({ agent }: { agent: AgentInfo }) {
  const [shown, setShown] = useState(false);
  const homeDir = useBaton((state) => state.homeDir);
  const authMethods = useBaton((state) => state.cards[agent.agentId]?.card?.authMethods);
  return (
    <li className="settings-agent" aria-label={agent.displayName}>
      <h3>
        {agent.displayName}
        {agent.version ? <span className="muted"> {agent.version}</span> : null}
      </h3>
      <p className={agent.available ? 'muted' : 'notice-warning'}>{agent.available ? `Ready: ${agent.path ?? agent.command}` : (agent.unavailableReason ?? 'Not available.')}</p>
      {!agent.available && agent.installHint && !agent.managed ? <p className="muted">{agent.installHint}</p> : null}
      {agent.available ? <ManagedAgent agent={agent} /> : <InstallAction agent={agent} />}
      <ProcessPerConversation agentId={agent.agentId} />
      {agent.available ? (
        <button type="button" aria-expanded={shown} onClick={() => setShown(!shown)}>
          {shown ? `Hide what ${agent.displayName} can do` : `Show what ${agent.displayName} can do`}
        </button>
      ) : null}
      {shown ? (
        <>
          <AgentCard agentId={agent.agentId} available={agent.available} cwd={homeDir} />
          {authMethods && authMethods.length > 0 ? <LogInPrompt agentId={agent.agentId} methods={authMethods} /> : null}
        </>
      ) : null}
    </li>
  );
}

/** Checkbox "One process per conversation": each conversation's session gets a process of its own (by default, conversations in one folder share one). */
function ProcessPerConversation({ agentId }: { agentId: string }) {
  const on = useBaton((state) => state.processSettings.perConversation.includes(agentId));
  const cannot = useBaton((state) => state.processSettings.cannotSeparate[agentId]);
  const set = useBaton((state) => state.setProcessPerConversation);
  return (
    <label className="checkbox" title={cannot}>
      <input type="checkbox" checked={on} disabled={cannot !== undefined} onChange={(event) => void set(agentId, event.target.checked)} /> One process per conversation
      {cannot ? <span className="muted"> ({cannot})</span> : null}
    </label>
  );
}
