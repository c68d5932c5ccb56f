/** The message box: Enter sends, Shift+Enter starts a new line; Stop cancels a running reply. */
import type { KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useBaton } from '../../store/index.js';
import { composerKey } from '../../store/store.js';
import { selectCommandSuggestions, selectComposerText, selectTurnRunning } from '../../store/selectors/transcript.js';

/** The composer. */
export function Composer() {
  const text = useBaton(selectComposerText);
  const key = useBaton((state) => composerKey(state.selection));
  const running = useBaton(selectTurnRunning);
  const sending = useBaton((state) => state.sending);
  const send = useBaton((state) => state.send);
  const cancel = useBaton((state) => state.cancel);
  const setComposer = useBaton((state) => state.setComposer);
  const canSend = !running && !sending && text.trim() !== '';
  const commands = useBaton(useShallow(selectCommandSuggestions));

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (canSend) {
        void send();
      }
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        if (canSend) {
          void send();
        }
      }}
    >
      <textarea
        aria-label="Message"
        placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
        rows={3}
        value={text}
        onChange={(event) => setComposer(key, event.target.value)}
        onKeyDown={onKeyDown}
      />
      {commands.length > 0 ? (
        <ul className="command-suggestions" aria-label="Commands">
          {commands.map((command) => (
            <li key={command.name}>
              <button type="button" onClick={() => setComposer(key, `/${command.name} `)}>
                <strong>/{command.name}</strong> {command.description}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="composer-buttons">
        <button type="submit" disabled={!canSend}>
          Send
        </button>
        <button type="button" disabled={!running} onClick={() => void cancel()}>
          Stop
        </button>
      </div>
    </form>
  );
}
