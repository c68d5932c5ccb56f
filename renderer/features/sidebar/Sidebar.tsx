/**
 * The sidebar: one primary button "New conversation" (import in the menu "More ways to start"),
 * search, which part of the history to show, and the list or the search results.
 */
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { ChevronDown, SquarePen } from 'lucide-react';
import { useRef } from 'react';
import { useBaton } from '../../store/index.js';
import type { HistoryView } from '../../store/types.js';
import { ConversationList } from './ConversationList.js';
import { SearchBox } from './SearchBox.js';
import { SearchResults } from './SearchResults.js';
import { UndoToast } from './UndoToast.js';

const VIEWS: Array<{ view: HistoryView; label: string }> = [
  { view: 'active', label: 'Recent' },
  { view: 'archived', label: 'Archived' },
  { view: 'deleted', label: 'Trash' },
];

/** The sidebar. */
export function Sidebar() {
  const newConversation = useBaton((state) => state.newConversation);
  const importFile = useBaton((state) => state.importFile);
  const view = useBaton((state) => state.view);
  const setView = useBaton((state) => state.setView);
  const searching = useBaton((state) => state.search.text.trim() !== '');
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <nav className="sidebar" id="conversation-history" aria-label="Conversation history">
      <div className="sidebar-actions">
        <button type="button" className="new-conversation" onClick={() => newConversation()}>
          <SquarePen size={16} aria-hidden="true" /> New conversation
        </button>
        {/* The other way to start: importing a conversation exported from Baton. */}
        <DropdownMenu.Root>
          <DropdownMenu.Trigger className="icon-action" aria-label="More ways to start" title="More ways to start: import a conversation">
            <ChevronDown size={16} aria-hidden="true" />
          </DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content className="menu" align="end" sideOffset={4}>
              <DropdownMenu.Item className="menu-item" onSelect={() => fileInput.current?.click()}>
                Import JSONL…
              </DropdownMenu.Item>
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
        <input
          ref={fileInput}
          type="file"
          accept=".jsonl,application/x-ndjson"
          aria-label="Import a transcript file"
          hidden
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) {
              void importFile(file);
            }
          }}
        />
      </div>
      <SearchBox />
      {searching ? (
        <SearchResults />
      ) : (
        <>
          <div className="view-switch" role="group" aria-label="Show">
            {VIEWS.map((entry) => (
              <button key={entry.view} type="button" aria-pressed={view === entry.view} onClick={() => void setView(entry.view)}>
                {entry.label}
              </button>
            ))}
          </div>
          <ConversationList />
        </>
      )}
      <UndoToast />
      <div className="sidebar-footer">
        <SettingsButton />
        <span className="hint">
          Press <kbd>?</kbd> for shortcuts
        </span>
      </div>
    </nav>
  );
}

/** Opens the settings page (or closes it when it shows). */
function SettingsButton() {
  const open = useBaton((state) => state.settings !== null);
  const openSettings = useBaton((state) => state.openSettings);
  const closeSettings = useBaton((state) => state.closeSettings);
  return (
    <button type="button" aria-pressed={open} aria-keyshortcuts="Control+," onClick={() => (open ? closeSettings() : void openSettings())}>
      Settings
    </button>
  );
}
