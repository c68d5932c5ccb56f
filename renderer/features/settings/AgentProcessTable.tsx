/**
 * Settings › Agents › table "Agent processes": the agent processes Baton runs now (conversations
 * in one folder whose agent is started the same way share one, unless the agent is set to one
 * process per conversation), with the conversations each carries. Asked again every second while
 * it shows.
 */
import { useEffect } from 'react';
import { useBaton } from '../../store/index.js';

const REFRESH_MS = 1_000;

/** The table. */
export function AgentProcessTable() {
  const processes = useBaton((state) => state.processes);
  const load = useBaton((state) => state.loadProcesses);
  const stop = useBaton((state) => state.stopProcess);
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);
  return (
    <section aria-labelledby="agent-processes-title">
      <h3 id="agent-processes-title">Agent processes</h3>
      <p className="hint">
        Conversations in one folder whose agent is started the same way share one process, each with its own session, unless the agent is
        set to one process per conversation. A process ends when its last session has been idle for a while.
      </p>
      {processes === null ? <p aria-busy="true">Asking…</p> : null}
      {processes !== null && processes.length === 0 ? <p>No agent is running.</p> : null}
      {processes !== null && processes.length > 0 ? (
        <table aria-label="Agent processes" className="process-table">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Conversations</th>
              <th scope="col">Process</th>
              <th scope="col">Sessions</th>
              <th scope="col">State</th>
              <th scope="col">Machine</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {processes.map((process) => (
              <tr key={process.launchDigest}>
                <th scope="row">
                  {process.agentName}
                  {process.version ? <span className="muted"> {process.version}</span> : null}
                </th>
                <td>{process.conversationTitles.length === 0 ? '—' : process.conversationTitles.join(', ')}</td>
                <td>{process.pid ?? '—'}</td>
                <td>{process.sessions}</td>
                <td title={process.state === 'idle' ? 'No conversation uses it now; it ends soon unless one does' : undefined}>
                  {process.state}
                </td>
                <td>{process.machine}</td>
                <td>
                  <button
                    type="button"
                    disabled={process.state !== 'running' && process.state !== 'idle'}
                    aria-label={`Stop ${process.agentName}'s process${process.pid ? ` ${process.pid}` : ''}`}
                    title="Stops it now (its running turns first); its conversations start it again with their next message"
                    onClick={() => void stop(process.launchDigest, process.agentName)}
                  >
                    Stop
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
