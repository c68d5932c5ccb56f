/**
 * Installing, updating and removing an agent in Baton's own agents folder: the action, npm's (or
 * the download's) progress while it runs, a readable error (with the last lines) when it fails,
 * and, for an archive the registry gives no checksum for, the question before anything is got; for
 * a version the npm registry does not have, the nearest newer one offered.
 */
import { useState } from 'react';
import type { AgentInfo } from '../../../app/agents/agentInfo.js';
import { useBaton } from '../../store/index.js';

/** A question before an install goes on (an archive without a checksum, another version): yes, or "Don't install". */
function InstallQuestion(props: { label: string; message: string; yes: string; onYes: () => void; onNo: () => void }) {
  return (
    <div className="notice notice-warning" role="alertdialog" aria-label={props.label}>
      <p>{props.message}</p>
      <button type="button" onClick={props.onYes}>
        {props.yes}
      </button>{' '}
      <button type="button" onClick={props.onNo}>
        Don't install
      </button>
    </div>
  );
}

/** Progress and outcome of the agent's last install action. */
function InstallLog({ agentId, agentName }: { agentId: string; agentName: string }) {
  const install = useBaton((state) => state.installs[agentId]);
  const cancel = useBaton((state) => state.cancelInstall);
  const installAgent = useBaton((state) => state.installAgent);
  const dismiss = useBaton((state) => state.dismissInstall);
  if (!install) {
    return null;
  }
  return (
    <div className="install-log">
      {install.confirm ? (
        <InstallQuestion
          label={`Install ${agentName} without a checksum?`}
          message={install.confirm.message}
          yes="Install anyway"
          onYes={() => void installAgent(agentId, { unverified: true })}
          onNo={() => dismiss(agentId)}
        />
      ) : null}
      {install.offer ? (
        <InstallQuestion
          label={`Install ${agentName} ${install.offer.version} instead?`}
          message={install.offer.message}
          yes={`Install ${install.offer.version}`}
          onYes={() => void installAgent(agentId, { version: install.offer!.version })}
          onNo={() => dismiss(agentId)}
        />
      ) : null}
      {install.running ? (
        <p role="status" className="muted">
          <progress aria-label={`${install.action === 'remove' ? 'Removing' : install.action === 'update' ? 'Updating' : 'Installing'}…`} />{' '}
          {install.lines.at(-1) ?? 'Starting…'}{' '}
          {install.action !== 'remove' ? (
            <button type="button" onClick={() => void cancel(agentId)}>
              Cancel
            </button>
          ) : null}
        </p>
      ) : null}
      {install.error ? (
        <p className="notice-error" role="alert">
          {install.error}
        </p>
      ) : null}
      {install.lines.length > 0 ? (
        <details open={Boolean(install.error)}>
          <summary>Install output</summary>
          <pre role="log" aria-label="Install output">
            {install.lines.join('\n')}
          </pre>
        </details>
      ) : null}
    </div>
  );
}

/** For an agent that is missing: install it, when Baton can. */
export function InstallAction({ agent }: { agent: AgentInfo }) {
  const installAgent = useBaton((state) => state.installAgent);
  const running = useBaton((state) => state.installs[agent.agentId]?.running ?? false);
  if (!agent.managed) {
    return null;
  }
  return (
    <div className="install-action">
      <button type="button" disabled={running} onClick={() => void installAgent(agent.agentId)}>
        Install {agent.displayName}
        {agent.managed.pinned ? ` ${agent.managed.pinned}` : ''}
      </button>{' '}
      <span className="muted">
        {agent.registry?.distribution === 'binary'
          ? "from the registry's archive, into Baton's own agents folder"
          : "into Baton's own agents folder (not your global npm)"}
      </span>
      <InstallLog agentId={agent.agentId} agentName={agent.displayName} />
    </div>
  );
}

/** For an agent Baton installed and uses: its version, Update when this Baton pins another, and Remove (confirmed). */
export function ManagedAgent({ agent }: { agent: AgentInfo }) {
  const installAgent = useBaton((state) => state.installAgent);
  const removeAgent = useBaton((state) => state.removeAgent);
  const running = useBaton((state) => state.installs[agent.agentId]?.running ?? false);
  const [confirming, setConfirming] = useState(false);
  const managed = agent.managed;
  if (!managed?.inUse) {
    return null;
  }
  // A registry agent offers its newer version; a built-in the version this Baton pins (and tests).
  const offered =
    agent.source === 'registry'
      ? managed.update
      : managed.pinned !== undefined && managed.installed !== managed.pinned
        ? managed.pinned
        : undefined;
  return (
    <div className="managed-agent">
      <span>Installed by Baton{managed.installed ? `: version ${managed.installed}` : ''}.</span>{' '}
      {offered ? (
        <button type="button" disabled={running} onClick={() => void installAgent(agent.agentId)}>
          Update to {offered}
        </button>
      ) : null}{' '}
      {confirming ? (
        <>
          <button type="button" disabled={running} onClick={() => void removeAgent(agent.agentId).then(() => setConfirming(false))}>
            Remove {agent.displayName} for good
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" disabled={running} onClick={() => setConfirming(true)}>
          Remove…
        </button>
      )}
      <InstallLog agentId={agent.agentId} agentName={agent.displayName} />
    </div>
  );
}
