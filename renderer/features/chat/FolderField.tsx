/**
 * Field "Working folder" for a new conversation: a path field whose typing is completed with the
 * host's folders (listbox "Folders": arrow keys move, Enter takes one, Escape closes it), plus the
 * native folder dialog where there is one (Electron). The field keeps its text box role; the
 * suggestions are tied to it with aria-controls and aria-activedescendant.
 */
import { useState } from 'react';
import { pickFolder, revealFolder } from '../../api.js';
import { useCopy } from '../../components/useCopy.js';
import { useBaton } from '../../store/index.js';
import { SuggestionList, useAsked } from '../../components/Suggestions.js';

/** An existing conversation's folder: a value, not a field (it stays), with Reveal where the desktop can show it, else Copy path. */
function FolderValue({ value, conversationId }: { value: string; conversationId: string | undefined }) {
  const [copied, copy] = useCopy();
  return (
    <div className="field field-grow folder-field folder-value" role="group" aria-label="Working folder">
      <span className="field-label">Working folder</span>
      <code title={value}>{value}</code>
      {revealFolder && conversationId ? (
        <button type="button" className="header-action" onClick={() => void revealFolder?.(conversationId)}>
          Reveal
        </button>
      ) : (
        <button type="button" className="header-action" onClick={() => copy(value)}>
          {copied ? 'Copied' : 'Copy path'}
        </button>
      )}
    </div>
  );
}

/** The field; once the conversation exists (`readOnly`), its folder as a value. */
export function FolderField({
  value,
  readOnly,
  onChange,
  conversationId,
}: {
  value: string;
  readOnly: boolean;
  onChange: (folder: string) => void;
  conversationId?: string | undefined;
}) {
  if (readOnly) {
    return <FolderValue value={value} conversationId={conversationId} />;
  }
  return <FolderInput value={value} onChange={onChange} />;
}

/** Field "Working folder" of a new conversation. */
function FolderInput({ value, onChange }: { value: string; onChange: (folder: string) => void }) {
  const [suggesting, setSuggesting] = useState(false);
  const [highlight, setHighlight] = useState(-1);
  const completeFolder = useBaton((state) => state.completeFolder);
  const problem = useBaton((state) => state.draftFolderProblem);
  const folders = useAsked(suggesting && value.trim() !== '' ? value : undefined, () => completeFolder(value));
  const shown = folders.length > 0 && !(folders.length === 1 && folders[0] === value);
  const choose = (folder: string): void => {
    onChange(folder);
    setSuggesting(false);
    setHighlight(-1);
  };
  return (
    <label className="field field-grow folder-field">
      <span>Working folder</span>
      <input
        aria-label="Working folder"
        type="text"
        spellCheck={false}
        autoComplete="off"
        value={value}
        placeholder="The path of the folder the agent works in"
        aria-invalid={problem ? true : undefined}
        aria-autocomplete="list"
        aria-controls={shown ? 'folder-suggestions' : undefined}
        aria-activedescendant={shown && highlight >= 0 ? `folder-${highlight}` : undefined}
        onChange={(event) => {
          onChange(event.target.value);
          setSuggesting(true);
          setHighlight(-1);
        }}
        onBlur={() => setSuggesting(false)}
        onKeyDown={(event) => {
          if (!shown) {
            return;
          }
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            const step = event.key === 'ArrowDown' ? 1 : -1;
            setHighlight((current) => (current + step + folders.length) % folders.length);
          } else if (event.key === 'Enter' && highlight >= 0) {
            event.preventDefault();
            choose(folders[highlight]!);
          } else if (event.key === 'Escape') {
            event.preventDefault();
            setSuggesting(false);
          }
        }}
      />
      {shown ? (
        <SuggestionList
          prefix="folder"
          label="Folders"
          className="folder-suggestions"
          options={folders.map((folder) => ({ key: folder, content: folder }))}
          highlight={highlight}
          choose={(index) => choose(folders[index]!)}
        />
      ) : null}
      {pickFolder ? (
        <button
          type="button"
          onClick={() =>
            void pickFolder?.().then((folder) => {
              if (folder) {
                onChange(folder);
              }
            })
          }
        >
          Choose…
        </button>
      ) : null}
    </label>
  );
}
