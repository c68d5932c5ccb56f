/** Search results: the matching message with the words marked; choosing one opens the conversation at that message. */
import { Fragment } from 'react';
import { plainText } from '../../../app/text/plainText.js';
import { relativeTime } from '../../components/relativeTime.js';
import { useBaton } from '../../store/index.js';

/** A snippet as plain text (made so whole: a word the markers cut keeps its underscores), split at its match markers (\u0002 … \u0003). */
function Snippet({ text }: { text: string }) {
  const parts = plainText(text).split(/(\u0002[^\u0003]*\u0003)/);
  return (
    <>
      {parts.map((part, index) =>
        part.startsWith('\u0002') ? <mark key={index}>{part.slice(1, -1)}</mark> : <Fragment key={index}>{part}</Fragment>,
      )}
    </>
  );
}

/** The results list. */
export function SearchResults() {
  const { results, searching } = useBaton((state) => state.search);
  const agents = useBaton((state) => state.agents);
  const select = useBaton((state) => state.select);
  const agentName = (agentId: string): string => agents.find((agent) => agent.agentId === agentId)?.displayName ?? agentId;
  return (
    <div className="conversation-scroller">
      <ul className="search-results" aria-label="Search results" aria-busy={searching}>
        {[...results]
          .sort((a, b) => b.at.localeCompare(a.at))
          .map((hit) => (
            <li key={`${hit.conversationId}:${hit.seq}`}>
              <button type="button" className="conversation-item" onClick={() => void select(hit.conversationId, hit.seq)}>
                <span className="conversation-title">{hit.title || 'New conversation'}</span>
                <span className="search-snippet">
                  <Snippet text={hit.snippet} />
                </span>
                <span className="conversation-meta">
                  <span className="agent-badge">{hit.role === 'user' ? 'You' : agentName(hit.agentId)}</span>
                  <time dateTime={hit.at}>{relativeTime(hit.at)}</time>
                </span>
              </button>
            </li>
          ))}
      </ul>
      {!searching && results.length === 0 ? <p className="empty-hint">No matches.</p> : null}
    </div>
  );
}
