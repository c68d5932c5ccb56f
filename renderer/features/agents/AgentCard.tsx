/**
 * The capability card of the agent picked for a new conversation, read from the agent itself: a
 * one-line summary in plain words, its log-in and actions, and behind "More about <agent>" what it
 * can do in full and the protocol's own terms.
 */
import { logInSummary, signedInWords } from '../../../app/agents/logInWords.js';
import { useEffect } from 'react';
import type { AgentCard } from '../../../app/agents/agentCard.js';
import { useBaton } from '../../store/index.js';
import { LogInPrompt } from './LogInPrompt.js';

const yes = (value: boolean): string => (value ? 'yes' : 'no');

/** Probes the agent when it is picked and shows what it can do. */
export function AgentCard({
  agentId,
  available,
  cwd,
  expanded = false,
}: {
  agentId: string;
  available: boolean;
  cwd: string;
  /** "More about <agent>" open from the start (where the card was asked for). */
  expanded?: boolean;
}) {
  const entry = useBaton((state) => state.cards[agentId]);
  const describeAgent = useBaton((state) => state.describeAgent);
  const logOut = useBaton((state) => state.logOut);
  const listAgentSessions = useBaton((state) => state.listAgentSessions);
  const installAgent = useBaton((state) => state.installAgent);
  // Asked again whenever the card is gone (logging in or out forgets it).
  const missing = entry === undefined;
  useEffect(() => {
    if (agentId && available && missing) {
      void describeAgent(agentId);
    }
  }, [agentId, available, missing, describeAgent]);

  if (!agentId || !available) {
    return null;
  }
  const { card, error } = entry ?? {};
  return (
    <section className="agent-card" aria-label="Agent capabilities" aria-busy={!card && !error}>
      {error ? <p className="notice-error">Could not read this agent's capabilities: {error}</p> : null}
      {!card && !error ? <p className="muted">Asking the agent what it can do…</p> : null}
      {card ? (
        <>
          <p className="card-summary">
            {card.version ? <span className="agent-version">{`${card.displayName} ${card.version}`}</span> : null}
            {shortCapabilities(card).map((fact) => (
              <span key={fact}>{fact}</span>
            ))}
          </p>
          {card.oldestSupported ? (
            <p className="notice-warning" role="alert">
              {`This ${card.displayName} (${card.version ?? 'unknown version'}) is older than ${card.oldestSupported}, the oldest release Baton supports; it may not work as described here. Update installs Baton's own copy, which is then used instead. `}
              <button type="button" className="link-button" onClick={() => void installAgent(agentId)}>
                Update
              </button>
            </p>
          ) : null}
          {card.authMethods.length > 0 ? (
            <div className="card-log-in" role="group" aria-label={`Log in to ${card.displayName}`}>
              <p className="muted">{`${card.displayName} can ask you to log in (an account of its own); do it now, or when it asks:`}</p>
              <LogInPrompt methods={card.authMethods} agentId={agentId} />
            </div>
          ) : null}
          {card.signedIn ? <p className="muted">{signedInLine(card.displayName, card.signedIn)}</p> : null}
          <div className="card-actions">
            {card.sessions.list ? (
              <button
                type="button"
                className="link-button"
                onClick={() => void listAgentSessions(agentId, cwd.startsWith('/') || /^[A-Za-z]:[\\/]/.test(cwd) ? cwd : undefined)}
              >
                Import its sessions…
              </button>
            ) : null}
            {card.logout ? (
              <button type="button" className="link-button" onClick={() => void logOut(agentId)}>
                Log out
              </button>
            ) : null}
          </div>
          <details className="card-more" open={expanded}>
            <summary>More about {card.displayName}</summary>
            <ul className="capabilities" aria-label={`What ${card.displayName} can do`}>
              {plainCapabilities(card).map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
            <details className="protocol-details">
              <summary>Protocol details</summary>
              <dl>
                <dt>Agent</dt>
                <dd>
                  {card.implementation ?? card.displayName} · ACP version {card.protocolVersion}
                </dd>
                <dt>Sessions</dt>
                <dd>
                  load {yes(card.sessions.load)} · resume {yes(card.sessions.resume)} · list {yes(card.sessions.list)} · fork{' '}
                  {yes(card.sessions.fork)} · close {yes(card.sessions.close)}
                </dd>
                <dt>Tools (MCP)</dt>
                <dd>{card.mcp.stdio ? `stdio${card.mcp.http ? ', http' : ''}${card.mcp.sse ? ', sse' : ''}` : 'none'}</dd>
                <dt>Prompt content</dt>
                <dd>
                  text{card.prompt.image ? ', image' : ''}
                  {card.prompt.audio ? ', audio' : ''}
                  {card.prompt.embeddedContext ? ', embedded resources' : ''}
                </dd>
                <dt>Instructions</dt>
                <dd>{card.instructions}</dd>
                {card.authMethods.length > 0 ? (
                  <>
                    <dt>Sign-in</dt>
                    <dd>{card.authMethods.map((method) => method.name).join(', ')}</dd>
                  </>
                ) : null}
              </dl>
            </details>
          </details>
        </>
      ) : null}
    </section>
  );
}

/** The card's one line: a few words each for sessions, tools, content and instructions. */
export function shortCapabilities(card: AgentCard): string[] {
  const takes = [card.prompt.image ? 'images' : '', card.prompt.audio ? 'audio' : '', card.prompt.embeddedContext ? 'files' : ''].filter(
    Boolean,
  );
  const { replace, append } = card.instructionChannels;
  return [
    card.sessions.load || card.sessions.resume ? 'reopens sessions' : 'no reopening',
    !card.mcp.stdio ? 'no toolbox tools' : card.mcp.http || card.mcp.sse ? 'local and web tools' : 'local tools',
    takes.length > 0 ? `text, ${takes.join(', ')}` : 'text only',
    replace || append ? 'takes instructions' : 'no instructions',
  ];
}

/** What the agent can do, in plain words (the protocol's names stay in the details). */
export function plainCapabilities(card: AgentCard): string[] {
  const lines: string[] = [];
  lines.push(
    card.sessions.load || card.sessions.resume
      ? 'Can reopen earlier sessions'
      : 'Cannot reopen earlier sessions: Baton catches it up from the transcript instead',
  );
  if (card.sessions.subagents) {
    lines.push('Runs subagents: their work shows as cards inside the turn');
  }
  if (card.sessions.list) {
    lines.push('Lists its own sessions, so you can import them');
  }
  if (!card.mcp.stdio) {
    lines.push('Uses no tools from your toolbox');
  } else {
    lines.push(card.mcp.http || card.mcp.sse ? 'Uses local and web/HTTP tools' : 'Uses local tools only (no web/HTTP tools)');
  }
  if (card.asksBeforeMcpTools === true) {
    lines.push('Asks before running tools from your toolbox');
  } else if (card.asksBeforeMcpTools === false) {
    // About the toolbox's (MCP) tools only: its own commands and edits follow its mode.
    lines.push('Runs tools from your toolbox without asking you');
  }
  const takes = [
    card.prompt.image ? 'images' : '',
    card.prompt.audio ? 'audio' : '',
    card.prompt.embeddedContext ? 'attached files' : '',
  ].filter(Boolean);
  lines.push(takes.length > 0 ? `Takes text and ${takes.join(', ')}` : 'Takes text only');
  const { replace, append } = card.instructionChannels;
  lines.push(
    replace && append
      ? 'Takes your standing instructions, added to or replacing its own'
      : append
        ? 'Takes your standing instructions, added to its own'
        : replace
          ? 'Takes standing instructions only in place of its own'
          : 'Cannot take standing instructions',
  );
  if (card.authMethods.length > 0) {
    lines.push(logInSummary(card.authMethods.map((method) => method.name)));
  }
  return lines;
}

/** What the agent says of the log-in it uses, and whether Log out can end it. */
function signedInLine(name: string, status: NonNullable<AgentCard['signedIn']>): string {
  if (status.kind === 'none') {
    return `${name} says it is not logged in.`;
  }
  if (status.kind === 'api_key') {
    return `${name} uses ${signedInWords(status)}, set outside Baton: logging out cannot end it.`;
  }
  if (status.kind === 'external') {
    return `${name} uses ${signedInWords(status)} credentials, kept outside ${name}.`;
  }
  return `${name} is logged in: ${signedInWords(status)}.`;
}
