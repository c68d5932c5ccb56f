/** The capability card of the agent picked for a new conversation, read from the agent itself. */
import { useEffect } from 'react';
import { useBaton } from '../../store/index.js';

const yes = (value: boolean): string => (value ? 'yes' : 'no');

/** Probes the agent when it is picked and shows what it can do. */
export function AgentCard({ agentId, available, cwd }: { agentId: string; available: boolean; cwd: string }) {
  const entry = useBaton((state) => state.cards[agentId]);
  const describeAgent = useBaton((state) => state.describeAgent);
  const logOut = useBaton((state) => state.logOut);
  const listAgentSessions = useBaton((state) => state.listAgentSessions);
  useEffect(() => {
    if (agentId && available) {
      void describeAgent(agentId);
    }
  }, [agentId, available, describeAgent]);

  if (!agentId || !available) {
    return null;
  }
  const { card, error } = entry ?? {};
  return (
    <section className="agent-card" aria-label="Agent capabilities" aria-busy={!card && !error}>
      {error ? <p className="notice-error">Could not read this agent's capabilities: {error}</p> : null}
      {!card && !error ? <p className="muted">Asking the agent what it can do…</p> : null}
      {card ? (
        <dl>
          <dt>Agent</dt>
          <dd>{card.implementation ?? card.displayName}</dd>
          <dt>Sessions</dt>
          <dd>
            load {yes(card.sessions.load)} · resume {yes(card.sessions.resume)} · list {yes(card.sessions.list)} · fork {yes(card.sessions.fork)} · close{' '}
            {yes(card.sessions.close)}
            {card.sessions.list ? (
              <button type="button" className="link-button" onClick={() => void listAgentSessions(agentId, cwd.startsWith('/') || /^[A-Za-z]:[\\/]/.test(cwd) ? cwd : undefined)}>
                Import its sessions…
              </button>
            ) : null}
          </dd>
          <dt>Tools (MCP)</dt>
          <dd>
            {card.mcp.stdio ? `stdio${card.mcp.http ? ', http' : ''}${card.mcp.sse ? ', sse' : ''}` : 'none: it does not use MCP servers'}
            {card.asksBeforeMcpTools === false ? ' · runs tools without asking you' : card.asksBeforeMcpTools ? ' · asks before each tool' : ''}
          </dd>
          <dt>Accepts</dt>
          <dd>text{card.prompt.image ? ', images' : ''}{card.prompt.audio ? ', audio' : ''}{card.prompt.embeddedContext ? ', attached files' : ''}</dd>
          <dt>Instructions</dt>
          <dd>{card.instructions}</dd>
          {card.authMethods.length > 0 || card.logout ? (
            <>
              <dt>Sign-in</dt>
              <dd>
                {card.authMethods.map((method) => method.name).join(', ')}
                {card.logout ? (
                  <button type="button" className="link-button" onClick={() => void logOut(agentId)}>
                    Log out
                  </button>
                ) : null}
              </dd>
            </>
          ) : null}
        </dl>
      ) : null}
    </section>
  );
}
