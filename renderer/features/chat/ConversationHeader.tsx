/** Title (renamable in place) and what can be done with the open conversation. */
import { useState } from 'react';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { useBaton } from '../../store/index.js';

/** The header of an existing conversation. */
export function ConversationHeader({ summary }: { summary: ConversationSummary }) {
  const rename = useBaton((state) => state.rename);
  const setArchived = useBaton((state) => state.setArchived);
  const remove = useBaton((state) => state.remove);
  const restore = useBaton((state) => state.restore);
  const purge = useBaton((state) => state.purge);
  const exportConversation = useBaton((state) => state.exportConversation);
  const [editing, setEditing] = useState<string | null>(null);
  const id = summary.conversationId;

  const save = (): void => {
    if (editing !== null && editing.trim() !== '' && editing.trim() !== summary.title) {
      void rename(id, editing);
    }
    setEditing(null);
  };

  return (
    <div className="conversation-header">
      {editing === null ? (
        <h1 className="conversation-heading">
          {summary.title || 'New conversation'}
          {summary.lifecycle === 'archived' ? <span className="lifecycle-badge"> Archived</span> : null}
          {summary.lifecycle === 'deleted' ? <span className="lifecycle-badge"> In the trash</span> : null}
        </h1>
      ) : (
        <input
          className="rename-input"
          aria-label="Conversation title"
          autoFocus
          value={editing}
          onChange={(event) => setEditing(event.target.value)}
          onBlur={save}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              save();
            } else if (event.key === 'Escape') {
              setEditing(null);
            }
          }}
        />
      )}
      <div className="conversation-actions" role="toolbar" aria-label="Conversation actions">
        {summary.lifecycle === 'deleted' ? (
          <>
            <button type="button" onClick={() => void restore(id)}>
              Restore
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (window.confirm(`Erase “${summary.title || 'this conversation'}” for good? This cannot be undone.`)) {
                  void purge(id);
                }
              }}
            >
              Delete forever
            </button>
          </>
        ) : (
          <>
            <button type="button" onClick={() => setEditing(summary.title)}>
              Rename
            </button>
            <button type="button" onClick={() => void setArchived(id, summary.lifecycle !== 'archived')}>
              {summary.lifecycle === 'archived' ? 'Unarchive' : 'Archive'}
            </button>
            <button type="button" onClick={() => void remove(id)}>
              Delete
            </button>
          </>
        )}
        <button type="button" onClick={() => void exportConversation(id, 'markdown')}>
          Export Markdown
        </button>
        <button type="button" onClick={() => void exportConversation(id, 'jsonl')}>
          Export JSONL
        </button>
      </div>
    </div>
  );
}
