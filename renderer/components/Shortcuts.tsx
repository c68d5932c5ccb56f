/**
 * Keyboard shortcuts for the whole window, and their list (dialog "Keyboard shortcuts", opened
 * with "?"). Shortcuts that would type in a text field do nothing there.
 */
import { useLayoutEffect, useState } from 'react';
import { useBaton } from '../store/index.js';
import { selectActiveTranscript } from '../store/selectors/transcript.js';
import { DialogFrame } from './DialogFrame.js';

/** Every shortcut, as shown in the list. */
export const SHORTCUTS: ReadonlyArray<{ keys: string; action: string }> = [
  { keys: 'Alt+N', action: 'New conversation' },
  { keys: 'Ctrl+K', action: 'Search conversations' },
  { keys: 'Alt+A', action: 'Choose the agent (hand the conversation to another)' },
  { keys: 'Alt+M', action: 'Write a message' },
  { keys: 'Enter / Shift+Enter', action: 'Send / new line, in the message box' },
  { keys: 'Escape', action: 'Stop the running turn' },
  { keys: '1 – 9', action: 'Answer a permission question with that option' },
  { keys: 'Ctrl+Home', action: 'Go to the first message, in the transcript (earlier ones are read first)' },
  { keys: 'Ctrl+,', action: 'Open settings' },
  { keys: '?', action: 'Show these shortcuts' },
];

/** True when a key pressed in `target` types there (a text field, an editable element): a shortcut leaves it alone. */
export const typing = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

const focus = (selector: string): void => {
  document.querySelector<HTMLElement>(selector)?.focus();
};

/** Installs the shortcuts; renders their list while it is open. */
export function Shortcuts() {
  const [open, setOpen] = useState(false);
  const newConversation = useBaton((state) => state.newConversation);
  const cancel = useBaton((state) => state.cancel);
  const openSettings = useBaton((state) => state.openSettings);
  // Installed before the first paint (a layout effect, not a passive one, which React may run
  // after the window is shown): a key pressed as soon as the window shows is never lost.
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.defaultPrevented) {
        return;
      }
      const key = event.key.toLowerCase();
      if (event.altKey && !event.ctrlKey && !event.metaKey && (event.code === 'KeyN' || key === 'n')) {
        event.preventDefault();
        newConversation();
        setTimeout(() => focus('textarea[aria-label="Message"]'), 0);
      } else if ((event.ctrlKey || event.metaKey) && key === ',') {
        event.preventDefault();
        void openSettings();
      } else if ((event.ctrlKey || event.metaKey) && key === 'k') {
        event.preventDefault();
        focus('input[aria-label="Search conversations"]');
      } else if (event.altKey && (event.code === 'KeyA' || key === 'a')) {
        event.preventDefault();
        focus('input[role="combobox"][aria-label="Agent"]');
      } else if (event.altKey && (event.code === 'KeyM' || key === 'm')) {
        event.preventDefault();
        focus('textarea[aria-label="Message"]');
      } else if (
        key === 'escape' &&
        !document.querySelector('dialog[open]') &&
        !useBaton.getState().settings &&
        selectActiveTranscript(useBaton.getState())?.activeTurnId
      ) {
        void cancel();
      } else if (event.key === '?' && !typing(event.target) && !document.querySelector('dialog[open]')) {
        event.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [newConversation, cancel, openSettings]);
  if (!open) {
    return null;
  }
  return (
    <DialogFrame
      open={true}
      id="shortcuts-title"
      title="Keyboard shortcuts"
      className="shortcuts-dialog"
      onClose={() => setOpen(false)}
      actions={
        <>
          <button type="button" className="primary" onClick={() => setOpen(false)}>
            Close
          </button>
        </>
      }
    >
      <table>
        <tbody>
          {SHORTCUTS.map((shortcut) => (
            <tr key={shortcut.keys}>
              <th scope="row">
                <kbd>{shortcut.keys}</kbd>
              </th>
              <td>{shortcut.action}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </DialogFrame>
  );
}
