/**
 * The sessions an agent keeps itself (started in its own CLI or another editor), listed by the
 * agent, so they can be brought into Baton's history. One already imported opens instead.
 */
import { useBaton } from '../../store/index.js';

const formatter = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function when(updatedAt: string | null): string {
  if (!updatedAt) {
    return '';
  }
  const date = new Date(updatedAt);
  return Number.isNaN(date.getTime()) ? updatedAt : formatter.format(date);
}

/** The list, for the agent and folder it was asked for. */
export function AgentSessions({ agentName }: { agentName: string }) {
  const listing = useBaton((state) => state.agentSessions);
  const importAgentSession = useBaton((state) => state.importAgentSession);
  const listAgentSessions = useBaton((state) => state.listAgentSessions);
  const close = useBaton((state) => state.closeAgentSessions);
  const select = useBaton((state) => state.select);
  if (!listing) {
    return null;
  }
  const { agentId, cwd, loading, sessions, truncated, error, importing } = listing;
  return (
    <section className="agent-sessions" aria-label={`${agentName}'s own sessions`} aria-busy={loading}>
      <header>
        <strong>{agentName}'s own sessions</strong>{' '}
        {cwd ? <span className="muted">in {cwd}</span> : <span className="muted">in every folder</span>}
        {cwd ? (
          <button type="button" className="link-button" onClick={() => void listAgentSessions(agentId, undefined)}>
            Show every folder
          </button>
        ) : null}
        <button type="button" className="link-button" onClick={close} aria-label="Close the session list">
          Close
        </button>
      </header>
      {loading ? <p className="muted">Asking {agentName} for its sessions…</p> : null}
      {error ? (
        <p className="notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {!loading && !error && sessions.length === 0 ? <p className="muted">{agentName} has no sessions here.</p> : null}
      <ul>
        {sessions.map((session) => (
          <li key={session.sessionId}>
            <span className="agent-session-title">{session.title || session.sessionId}</span>{' '}
            <span className="muted">{when(session.updatedAt)}</span>
            {!cwd ? <span className="muted"> · {session.cwd}</span> : null}
            {session.conversationId ? (
              <button type="button" onClick={() => void select(session.conversationId!)}>
                Open (imported)
              </button>
            ) : (
              <button
                type="button"
                disabled={importing !== null}
                onClick={() => void importAgentSession(agentId, session.sessionId, session.cwd)}
              >
                {importing === session.sessionId ? 'Importing…' : 'Import'}
              </button>
            )}
          </li>
        ))}
      </ul>
      {truncated ? <p className="muted">Only the newest {sessions.length} are shown.</p> : null}
    </section>
  );
}
