/**
 * Settings › Agents: every agent Baton knows, whether it can run and why not, installing and
 * removing the ones Baton manages, and on request its capability card and log-in methods (the
 * card starts the agent once, so it is not read for every agent on opening), and the agent
 * processes running.
 */
import { useEffect, useState } from 'react';
import type { AgentInfo } from '../../../app/agents/agentInfo.js';
import { useBaton } from '../../store/index.js';
import { AgentCard } from '../agents/AgentCard.js';
import { InstallAction, ManagedAgent } from '../agents/AgentInstall.js';
import { AgentProcessTable } from './AgentProcessTable.js';
import { Tick } from '../../components/Tick.js';

/** The catalog. */
export function AgentsSettings() {
  const agents = useBaton((state) => state.agents);
  const agentsFileProblem = useBaton((state) => state.agentsFileProblem);
  return (
    <>
      <h2>Agents</h2>
      {agentsFileProblem ? (
        <p className="notice-warning" role="alert">
          Your custom agents are not offered: {agentsFileProblem}
        </p>
      ) : null}
      <RegistrySettings />
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
  return (
    <li className="settings-agent" aria-label={agent.displayName}>
      <h3>
        {agent.displayName}
        {agent.version ? <span className="muted"> {agent.version}</span> : null}
      </h3>
      <p className={agent.available ? 'muted' : 'notice-warning'}>
        {agent.available ? `Ready: ${agent.path ?? agent.command}` : (agent.unavailableReason ?? 'Not available.')}
      </p>
      {!agent.available && agent.installHint && !agent.managed ? <p className="muted">{agent.installHint}</p> : null}
      {agent.available ? <ManagedAgent agent={agent} /> : <InstallAction agent={agent} />}
      <ProcessPerConversation agentId={agent.agentId} />
      {agent.available ? (
        <button type="button" aria-expanded={shown} onClick={() => setShown(!shown)}>
          {shown ? `Hide what ${agent.displayName} can do` : `Show what ${agent.displayName} can do`}
        </button>
      ) : null}
      {shown ? <AgentCard agentId={agent.agentId} available={agent.available} cwd={homeDir} expanded /> : null}
    </li>
  );
}

/**
 * Checkbox "One process per conversation": each conversation's session gets a process of its own (by default, conversations in one folder
 * share one).
 */
function ProcessPerConversation({ agentId }: { agentId: string }) {
  const on = useBaton((state) => state.processSettings.perConversation.includes(agentId));
  const cannot = useBaton((state) => state.processSettings.cannotSeparate[agentId]);
  const set = useBaton((state) => state.setProcessPerConversation);
  return (
    <Tick
      className="checkbox"
      title={cannot}
      checked={on}
      disabled={cannot !== undefined}
      onChange={(checked) => void set(agentId, checked)}
    >
      One process per conversation
      {cannot ? <span className="muted"> ({cannot})</span> : null}
    </Tick>
  );
}

/** When a time was, in the person's words. */
function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/**
 * Section "ACP Registry": where the list of agents comes from (the list Baton shipped with, or a
 * copy downloaded from the registry's address), why the last refresh failed, field "Registry
 * address" (a company mirror, a file, a server on 127.0.0.1; empty: the registry itself), and
 * "Check now".
 */
function RegistrySettings() {
  const registry = useBaton((state) => state.registry);
  const setUrl = useBaton((state) => state.setRegistryUrl);
  const refresh = useBaton((state) => state.refreshRegistry);
  const [address, setAddress] = useState('');
  const [checking, setChecking] = useState(false);
  const fromSetting = registry?.urlFrom === 'setting' ? (registry.url ?? 'off') : '';
  useEffect(() => setAddress(fromSetting), [fromSetting]);
  if (!registry) {
    return null;
  }
  const check = async (work: () => Promise<void>): Promise<void> => {
    setChecking(true);
    try {
      await work();
    } finally {
      setChecking(false);
    }
  };
  return (
    <section className="registry-settings" aria-labelledby="registry-title">
      <h3 id="registry-title">ACP Registry</h3>
      <p>
        {registry.agents} agents, from{' '}
        {registry.source === 'snapshot'
          ? `the list Baton shipped with (${registry.takenAt})`
          : `a copy downloaded ${when(registry.takenAt)}`}
        .
        {registry.url === null
          ? ' Refreshing is off.'
          : registry.checkedAt
            ? ` Last asked ${when(registry.checkedAt)}; asked again at most once an hour.`
            : ' Not asked yet.'}
      </p>
      {registry.problem ? (
        <p className="notice notice-warning" role="alert">
          The last refresh did not bring a new list: {registry.problem}.
        </p>
      ) : null}
      {registry.skipped.length > 0 ? (
        <p className="muted">{`Left out, not in the registry's format: ${registry.skipped.map((entry) => `${entry.id} (${entry.reason})`).join('; ')}`}</p>
      ) : null}
      {registry.urlFrom === 'environment' ? (
        <p className="muted">
          BATON_REGISTRY_URL sets the address for this run{registry.url ? `: ${registry.url}` : ' (off)'}; it wins over the field below.
        </p>
      ) : null}
      <form
        className="registry-address"
        onSubmit={(event) => {
          event.preventDefault();
          void check(() => setUrl(address.trim() === '' ? null : address.trim()));
        }}
      >
        <label className="field">
          <span>Registry address</span>
          <input
            type="text"
            value={address}
            placeholder="https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
            onChange={(event) => setAddress(event.target.value)}
            spellCheck={false}
          />
        </label>
        <button type="submit" disabled={checking}>
          Save address
        </button>{' '}
        <button type="button" disabled={checking || registry.url === null} onClick={() => void check(refresh)}>
          Check now
        </button>
      </form>
      <p className="hint">An https address, a file, or &ldquo;off&rdquo;. Empty: the ACP Registry itself.</p>
    </section>
  );
}
