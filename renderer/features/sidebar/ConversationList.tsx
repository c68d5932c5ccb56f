/**
 * The conversation list of the chosen view, most recent first. Virtualized (only the rows in
 * view are in the page) and paged (the next page loads as the end comes near), so ten thousand
 * conversations open as fast as ten.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import { relativeTime } from '../../components/relativeTime.js';
import { distinctions } from './distinctTitles.js';
import { useBaton } from '../../store/index.js';
import { questionsWaiting } from '../../store/slices/historySlice.js';
import { selectActiveConversationId } from '../../store/selectors/transcript.js';

/** A first guess at a row's height (two lines and the badges), until it is measured. */
const ROW_HEIGHT = 76;

const EMPTY: Record<string, string> = {
  active: 'No conversations yet.',
  archived: 'Nothing archived.',
  deleted: 'The trash is empty.',
};

/** The list. */
export function ConversationList() {
  const conversations = useBaton((state) => state.conversations);
  const attemptQuestions = useBaton((state) => state.attemptQuestions);
  const view = useBaton((state) => state.view);
  const hasMore = useBaton((state) => state.nextCursor !== null);
  const loadMore = useBaton((state) => state.loadMore);
  const select = useBaton((state) => state.select);
  const activeId = useBaton(selectActiveConversationId);
  const scroller = useRef<HTMLDivElement>(null);
  // Rows are as tall as what they hold (a branch's extra line): each is measured.
  const virtualizer = useVirtualizer({
    count: conversations.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    getItemKey: (index) => conversations[index]?.conversationId ?? index,
  });
  const rows = virtualizer.getVirtualItems();
  const suffixes = useMemo(() => distinctions(conversations), [conversations]);
  const lastIndex = rows.at(-1)?.index ?? 0;

  useEffect(() => {
    if (hasMore && lastIndex >= conversations.length - 20) {
      void loadMore();
    }
  }, [hasMore, lastIndex, conversations.length, loadMore]);
  // The open conversation stays in view when the list reorders (it moved up as it was used).
  const activeIndex = conversations.findIndex((conversation) => conversation.conversationId === activeId);
  useEffect(() => {
    if (activeIndex >= 0) {
      virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
    }
  }, [activeIndex]);

  return (
    <div className="conversation-scroller" ref={scroller}>
      <ul className="conversation-list" aria-label="Conversations" style={{ height: virtualizer.getTotalSize() }}>
        {rows.map((row) => {
          const conversation = conversations[row.index]!;
          return (
            <li
              key={conversation.conversationId}
              ref={virtualizer.measureElement}
              data-index={row.index}
              aria-setsize={hasMore ? -1 : conversations.length}
              aria-posinset={row.index + 1}
              style={{ transform: `translateY(${row.start}px)` }}
            >
              <button
                type="button"
                className="conversation-item"
                aria-current={conversation.conversationId === activeId ? 'page' : undefined}
                onClick={() => void select(conversation.conversationId)}
              >
                <span className="conversation-title">
                  {conversation.title || 'New conversation'}
                  {suffixes.has(conversation.conversationId) ? (
                    <span className="conversation-distinct"> · {suffixes.get(conversation.conversationId)}</span>
                  ) : null}
                </span>
                {conversation.branchedFrom ? (
                  <span className="conversation-branched">Branched from {conversation.branchedFrom.title || 'a conversation'}</span>
                ) : null}
                {conversation.preview && conversation.preview !== conversation.title ? (
                  <span className="conversation-preview">{conversation.preview.split('\n')[0]}</span>
                ) : null}
                <span className="conversation-meta">
                  <AgentsUsed conversation={conversation} />
                  {/* Status marks: small icons, their words for screen readers and in the tooltip, so the time keeps its place. */}
                  {conversation.running ? <span className="running-dot" aria-label="replying" /> : null}
                  {conversation.lastTurnFailed && !conversation.running ? (
                    <span
                      className="status-mark failure-badge"
                      title="Last turn failed: its last message failed or was refused; open it to see why"
                    >
                      <span aria-hidden="true">⚠</span>
                      <span className="visually-hidden">Last turn failed</span>
                    </span>
                  ) : null}
                  {questionsWaiting(conversation, attemptQuestions) > 0 ? (
                    <span
                      className="status-mark permission-badge"
                      title="Waiting for you: an agent (or an attempt) is waiting for your answer"
                    >
                      <span aria-hidden="true">?</span>
                      <span className="visually-hidden">Waiting for you</span>
                    </span>
                  ) : null}
                  <time dateTime={conversation.updatedAt}>{relativeTime(conversation.updatedAt)}</time>
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      {conversations.length === 0 ? <p className="empty-hint">{EMPTY[view]}</p> : null}
    </div>
  );
}

/** The agent serving it, and how many others served it before ("Claude +4"); all of them in words. */
function AgentsUsed({
  conversation,
}: {
  conversation: { agentId: string; agentName: string; agents: ReadonlyArray<{ agentId: string; agentName: string }> };
}) {
  const others = conversation.agents.filter((agent) => agent.agentId !== conversation.agentId);
  const all = [conversation.agentName, ...others.map((agent) => agent.agentName)];
  return (
    <span
      className="agent-badge"
      title={all.join(', ')}
      aria-label={all.length > 1 ? `Agents: ${all.join(', ')}` : `Agent: ${conversation.agentName}`}
    >
      {conversation.agentName}
      {others.length > 0 ? <span className="agent-more"> +{others.length}</span> : null}
    </span>
  );
}
