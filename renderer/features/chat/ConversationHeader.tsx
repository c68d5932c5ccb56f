/** Title (renamable in place) and what can be done with the open conversation. */
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Ellipsis } from 'lucide-react';
import { useState } from 'react';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { useBaton } from '../../store/index.js';
import { useCopy } from '../../components/useCopy.js';

/** The header of an existing conversation. */
export function ConversationHeader({ summary }: { summary: ConversationSummary }) {
  const rename = useBaton((state) => state.rename);
  const setArchived = useBaton((state) => state.setArchived);
  const remove = useBaton((state) => state.remove);
  const restore = useBaton((state) => state.restore);
  const purge = useBaton((state) => state.purge);
  const exportConversation = useBaton((state) => state.exportConversation);
  const openToolbox = useBaton((state) => state.openToolbox);
  const openInstructions = useBaton((state) => state.openInstructions);
  const [editing, setEditing] = useState<string | null>(null);
  const [, copy] = useCopy();
  const id = summary.conversationId;

  const save = (): void => {
    if (editing !== null && editing.trim() !== '' && editing.trim() !== summary.title) {
      void rename(id, editing);
    }
    setEditing(null);
  };

  const actions: Array<{ label: string; run: () => void; danger?: boolean }> =
    summary.lifecycle === 'deleted'
      ? [
          { label: 'Restore', run: () => void restore(id) },
          {
            label: 'Delete forever',
            danger: true,
            run: () => {
              if (
                window.confirm(
                  `Erase “${summary.title || 'this conversation'}” for good? This cannot be undone. The agents' own sessions Baton started for it are deleted too, where the agent can delete them.`,
                )
              ) {
                void purge(id);
              }
            },
          },
        ]
      : [
          { label: 'Rename', run: () => setEditing(summary.title) },
          {
            label: summary.lifecycle === 'archived' ? 'Unarchive' : 'Archive',
            run: () => void setArchived(id, summary.lifecycle !== 'archived'),
          },
          { label: 'Delete', run: () => void remove(id) },
        ];
  actions.push(
    // The header shows the folder where the window is wide enough; this copies it at any width.
    { label: 'Copy folder path', run: () => copy(summary.cwd) },
    { label: 'Export Markdown', run: () => void exportConversation(id, 'markdown') },
    { label: 'Export JSONL', run: () => void exportConversation(id, 'jsonl') },
  );

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
      {/* What can be done with the conversation, in one menu (the header keeps one row). */}
      <DropdownMenu.Root>
        <DropdownMenu.Trigger
          className="more-actions icon-action"
          aria-label="Conversation actions"
          title="Conversation actions: rename, archive, delete, export"
        >
          <Ellipsis size={16} aria-hidden="true" />
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content className="menu" align="end" sideOffset={4}>
            {/* The header's own Toolbox and Instructions buttons give way to these when the window is narrow. */}
            {summary.lifecycle === 'deleted' ? null : (
              <>
                <DropdownMenu.Item className="menu-item" onSelect={() => void openToolbox()}>
                  Toolbox
                </DropdownMenu.Item>
                <DropdownMenu.Item className="menu-item" onSelect={() => void openInstructions()}>
                  Instructions
                </DropdownMenu.Item>
                <DropdownMenu.Separator className="menu-separator" />
              </>
            )}
            {actions.map((action) => (
              <DropdownMenu.Item key={action.label} className={action.danger ? 'menu-item danger' : 'menu-item'} onSelect={action.run}>
                {action.label}
              </DropdownMenu.Item>
            ))}
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
    </div>
  );
}
