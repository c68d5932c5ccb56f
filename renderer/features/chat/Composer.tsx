/**
 * The message box: Enter sends, Shift+Enter starts a new line; while a reply runs, Enter queues
 * the message as a follow-up (sent when the turn ends) and Escape or Stop cancels the reply.
 * Slash-command suggestions are chosen with the arrow keys and Tab or Enter.
 */
import { useEffect, useState, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useBaton } from '../../store/index.js';
import { composerKey } from '../../store/store.js';
import { selectCommandSuggestions, selectComposerText, selectTurnRunning } from '../../store/selectors/transcript.js';

/** The composer. */
export function Composer() {
  const text = useBaton(selectComposerText);
  const key = useBaton((state) => composerKey(state.selection));
  const conversationId = useBaton((state) => (state.selection.kind === 'conversation' ? state.selection.conversationId : undefined));
  const running = useBaton(selectTurnRunning);
  const sending = useBaton((state) => state.sending);
  const send = useBaton((state) => state.send);
  const cancel = useBaton((state) => state.cancel);
  const setComposer = useBaton((state) => state.setComposer);
  const queued = useBaton((state) => (conversationId ? state.queued[conversationId] : undefined));
  const queue = useBaton((state) => state.queue);
  const unqueue = useBaton((state) => state.unqueue);
  const sendQueued = useBaton((state) => state.sendQueued);
  const canSend = !running && !sending && text.trim() !== '';
  const canQueue = running && conversationId !== undefined && queued === undefined && text.trim() !== '';
  const commands = useBaton(useShallow(selectCommandSuggestions));
  const [highlight, setHighlight] = useState(0);
  useEffect(() => setHighlight(0), [commands.length]);

  // The queued follow-up goes as soon as the turn has ended.
  useEffect(() => {
    if (!running && conversationId && queued !== undefined) {
      void sendQueued(conversationId);
    }
  }, [running, conversationId, queued, sendQueued]);

  const complete = (index: number): void => {
    const command = commands[index];
    if (command) {
      setComposer(key, `/${command.name} `);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (commands.length > 0 && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      setHighlight((current) => (current + (event.key === 'ArrowDown' ? 1 : commands.length - 1)) % commands.length);
      return;
    }
    if (commands.length > 0 && (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && !text.includes(' ')))) {
      event.preventDefault();
      complete(highlight);
      return;
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (canSend) {
        void send();
      } else if (canQueue) {
        queue();
      }
    } else if (event.key === 'Escape' && running) {
      event.preventDefault();
      void cancel();
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        if (canSend) {
          void send();
        } else if (canQueue) {
          queue();
        }
      }}
    >
      {queued !== undefined && conversationId ? (
        <p className="queued" role="status">
          Queued, sent when this reply ends: “{queued.length > 80 ? `${queued.slice(0, 79)}…` : queued}”{' '}
          <button type="button" onClick={() => unqueue(conversationId)}>
            Edit queued message
          </button>
        </p>
      ) : null}
      <textarea
        aria-label="Message"
        placeholder={running ? 'Write a follow-up: Enter queues it for when this reply ends' : 'Message the agent (Enter to send, Shift+Enter for a new line)'}
        rows={3}
        value={text}
        onChange={(event) => setComposer(key, event.target.value)}
        onKeyDown={onKeyDown}
        aria-autocomplete={commands.length > 0 ? 'list' : undefined}
        aria-controls={commands.length > 0 ? 'command-suggestions' : undefined}
        aria-activedescendant={commands.length > 0 ? `command-${highlight}` : undefined}
      />
      {commands.length > 0 ? (
        <ul className="command-suggestions" id="command-suggestions" role="listbox" aria-label="Commands">
          {commands.map((command, index) => (
            <li key={command.name} id={`command-${index}`} role="option" aria-selected={index === highlight} className={index === highlight ? 'highlighted' : undefined} onMouseDown={(event) => event.preventDefault()} onClick={() => complete(index)}>
              <strong>/{command.name}</strong> {command.description}
            </li>
          ))}
        </ul>
      ) : null}
      <div className="composer-buttons">
        {running ? (
          <button type="submit" disabled={!canQueue}>
            Queue
          </button>
        ) : (
          <button type="submit" disabled={!canSend}>
            Send
          </button>
        )}
        <button type="button" disabled={!running} onClick={() => void cancel()}>
          Stop
        </button>
      </div>
    </form>
  );
}
