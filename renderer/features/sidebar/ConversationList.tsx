/** The sidebar: "New conversation" and the list of conversations, most recent first. */
import { relativeTime } from '../../components/relativeTime.js';
import { useActions, useBaton } from '../../store/index.js';
import { selectActiveConversationId } from '../../store/selectors/transcript.js';

/** The conversation list. */
export function ConversationList() {
  const conversations = useBaton((state) => state.conversations);
  const activeId = useBaton(selectActiveConversationId);
  const actions = useActions();
  return (
    <nav className="sidebar" aria-label="Conversation history">
      <button type="button" className="new-conversation" onClick={() => actions.newConversation()}>
        New conversation
      </button>
      <ul className="conversation-list" aria-label="Conversations">
        {conversations.map((conversation) => (
          <li key={conversation.conversationId}>
            <button
              type="button"
              className="conversation-item"
              aria-current={conversation.conversationId === activeId ? 'page' : undefined}
              onClick={() => void actions.select(conversation.conversationId)}
            >
              <span className="conversation-title">{conversation.title || 'New conversation'}</span>
              <span className="conversation-meta">
                <span className="agent-badge">{conversation.agentName}</span>
                {conversation.running ? <span className="running-dot" aria-label="replying" /> : null}
                <time dateTime={conversation.updatedAt}>{relativeTime(conversation.updatedAt)}</time>
              </span>
            </button>
          </li>
        ))}
      </ul>
      {conversations.length === 0 ? <p className="empty-hint">No conversations yet.</p> : null}
    </nav>
  );
}
