/**
 * The message box: Enter sends, Shift+Enter starts a new line; while a reply runs, Enter queues
 * the message as a follow-up (sent when the turn ends) and Escape or Stop cancels the reply.
 * Slash-command suggestions, and after @ the files of the working folder, are chosen with the arrow
 * keys and Tab or Enter. Images pasted, and files dropped or picked, are attached (see Attachments).
 */
import { ListPlus, Paperclip, SendHorizontal, Square, Users } from 'lucide-react';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useBaton } from '../../store/index.js';
import { THIS_COMPUTER } from '../../store/slices/machinesSlice.js';
import { composerKey } from '../../store/store.js';
import {
  selectActiveMachine,
  selectActiveSummary,
  selectCommandSuggestions,
  selectComposerText,
  selectSteering,
  selectSending,
  selectTurnRunning,
} from '../../store/selectors/transcript.js';
import type { ComposerAttachment } from '../../store/types.js';
import { AttachmentList, fileAttachment, mentionAt, mentionAttachment, useFolderFiles } from './Attachments.js';
import { SuggestionList } from '../../components/Suggestions.js';
import { useEarlySession } from './useEarlySession.js';

const NO_ATTACHMENTS: ComposerAttachment[] = [];

/** The composer. */
export function Composer() {
  useEarlySession();
  const text = useBaton(selectComposerText);
  const key = useBaton((state) => composerKey(state.selection));
  const conversationId = useBaton((state) => (state.selection.kind === 'conversation' ? state.selection.conversationId : undefined));
  const running = useBaton(selectTurnRunning);
  const sending = useBaton(selectSending);
  const send = useBaton((state) => state.send);
  const cancel = useBaton((state) => state.cancel);
  const setComposer = useBaton((state) => state.setComposer);
  const queued = useBaton((state) => (conversationId ? state.queued[conversationId] : undefined));
  const aside = useBaton((state) => state.setAside[key]);
  const swapSetAside = useBaton((state) => state.swapSetAside);
  const queue = useBaton((state) => state.queue);
  const unqueue = useBaton((state) => state.unqueue);
  const sendQueued = useBaton((state) => state.sendQueued);
  const steerQueued = useBaton((state) => state.steerQueued);
  const steering = useBaton(selectSteering);
  // The agent the next message goes to, when it cannot run here: said before sending, not after.
  const missing = useBaton((state) => {
    const summary = selectActiveSummary(state);
    const agentId = summary ? (state.nextAgent[summary.conversationId] ?? summary.agentId) : state.draft.agentId;
    const agent = state.agents.find((candidate) => candidate.agentId === agentId);
    // Known for this computer only: on another machine the host looks there, and says so when it is not.
    const here = selectActiveMachine(state) === THIS_COMPUTER;
    return agent && !agent.available && here ? agent : undefined;
  });
  // A new conversation needs a folder that can be worked in (checked as it is typed).
  const folderBlocked = useBaton((state) =>
    selectActiveSummary(state)
      ? undefined
      : state.draft.cwd.trim() === ''
        ? 'Choose a working folder first.'
        : (state.draftFolderProblem ?? undefined),
  );
  const canSend = !running && !sending && text.trim() !== '' && missing === undefined && folderBlocked === undefined;
  // Why Send is off, once there is something to send (an empty box says nothing yet; the header asks for the folder).
  const blockedWhy = running ? undefined : missing ? 'missing' : folderBlocked !== undefined && text.trim() !== '' ? 'folder' : undefined;
  const canQueue = running && !sending && conversationId !== undefined && queued === undefined && text.trim() !== '';
  const commands = useBaton(useShallow(selectCommandSuggestions));
  const cwd = useBaton((state) => selectActiveSummary(state)?.cwd ?? state.draft.cwd);
  const machineId = useBaton(selectActiveMachine);
  const attachments = useBaton((state) => state.attachments[key] ?? NO_ATTACHMENTS);
  const addAttachment = useBaton((state) => state.addAttachment);
  const removeAttachment = useBaton((state) => state.removeAttachment);
  const showError = useBaton((state) => state.showError);
  const openAskSeveral = useBaton((state) => state.openAskDialog);
  const picker = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  // Focus comes through the store (after "Edit and resend", or a queued follow-up taken back): caret at the end.
  const focusRequest = useBaton((state) => state.messageBoxFocus);
  useEffect(() => {
    const node = box.current;
    if (focusRequest > 0 && node) {
      node.focus();
      node.setSelectionRange(node.value.length, node.value.length);
    }
  }, [focusRequest]);
  const [caret, setCaret] = useState(0);
  const mention = mentionAt(text, caret);
  // A mention already attached is complete: it offers nothing (Enter then sends or queues).
  const attachedAlready =
    mention !== undefined && attachments.some((entry) => entry.attachment.type === 'file' && entry.attachment.path === mention.query);
  const files = useFolderFiles(cwd, machineId, attachedAlready ? undefined : mention?.query);
  // One list of suggestions at a time: files after @, else slash commands.
  const mentioning = mention !== undefined && files.length > 0;
  const count = mentioning ? files.length : commands.length;
  const [highlight, setHighlight] = useState(0);
  useEffect(() => setHighlight(0), [count, mentioning]);
  const attachFiles = (list: readonly File[]): void => {
    for (const file of list) {
      fileAttachment(file).then(
        (attachment) => addAttachment(key, attachment),
        (error: unknown) => showError(error),
      );
    }
  };

  // The queued follow-up goes as soon as the turn has ended.
  useEffect(() => {
    if (!running && conversationId && queued !== undefined) {
      void sendQueued(conversationId);
    }
  }, [running, conversationId, queued, sendQueued]);

  const complete = (index: number): void => {
    if (mentioning && mention) {
      const file = files[index];
      if (file) {
        const inserted = `@${file} `;
        setComposer(key, text.slice(0, mention.start) + inserted + text.slice(caret));
        setCaret(mention.start + inserted.length);
        if (!attachments.some((entry) => entry.attachment.type === 'file' && entry.attachment.path === file)) {
          addAttachment(key, mentionAttachment(file));
        }
      }
      return;
    }
    const command = commands[index];
    if (command) {
      setComposer(key, `/${command.name} `);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (count > 0 && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      setHighlight((current) => (current + (event.key === 'ArrowDown' ? 1 : count - 1)) % count);
      return;
    }
    if (count > 0 && (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && (mentioning || !text.includes(' '))))) {
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
      onDragOver={(event) => {
        if (event.dataTransfer.types.includes('Files')) {
          event.preventDefault();
        }
      }}
      onDrop={(event) => {
        if (event.dataTransfer.files.length > 0) {
          event.preventDefault();
          attachFiles([...event.dataTransfer.files]);
        }
      }}
      onSubmit={(event) => {
        event.preventDefault();
        if (canSend) {
          void send();
        } else if (canQueue) {
          queue();
        }
      }}
    >
      {aside !== undefined ? (
        <p className="queued set-aside" role="status">
          Your unsent draft is kept aside: “{aside.length > 80 ? `${aside.slice(0, 79)}…` : aside}”. It comes back once this message is
          sent.{' '}
          <button type="button" onClick={() => swapSetAside(key)}>
            Swap in my draft
          </button>
        </p>
      ) : null}
      {queued !== undefined && conversationId ? (
        <p className="queued" role="status">
          Queued, sent when this reply ends: “{queued.text.length > 80 ? `${queued.text.slice(0, 79)}…` : queued.text}”
          {queued.attachments.length > 0 ? ` with ${queued.attachments.map((entry) => entry.label).join(', ')}` : ''}{' '}
          <button type="button" onClick={() => unqueue(conversationId)}>
            Edit queued message
          </button>
          {steering && running && queued.attachments.length === 0 ? (
            <button type="button" onClick={() => void steerQueued(conversationId)}>
              Send now
            </button>
          ) : null}
        </p>
      ) : null}
      {/* Why Send is off, on a line of its own above the box (never squeezed in beside the buttons). */}
      {blockedWhy ? (
        <p id="send-blocked" className="notice notice-warning send-blocked">
          {missing
            ? `${missing.displayName} is not available here, so nothing can be sent to it: ${missing.managed ? 'install it above' : 'install it, or fix its entry in agents.json'}, or pick another agent.`
            : folderBlocked}
        </p>
      ) : null}
      <AttachmentList attachments={attachments} remove={(id) => removeAttachment(key, id)} />
      <textarea
        ref={box}
        aria-label="Message"
        placeholder={
          running
            ? 'Write a follow-up: Enter queues it for when this reply ends'
            : 'Message the agent (Enter to send, Shift+Enter for a new line)'
        }
        rows={3}
        value={text}
        onChange={(event) => {
          setComposer(key, event.target.value);
          setCaret(event.target.selectionStart);
        }}
        onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
        onPaste={(event) => {
          const images = [...event.clipboardData.files].filter((file) => file.type.startsWith('image/'));
          if (images.length > 0) {
            event.preventDefault();
            attachFiles(images);
          }
        }}
        onKeyDown={onKeyDown}
        aria-autocomplete={count > 0 ? 'list' : undefined}
        aria-controls={mentioning ? 'file-suggestions' : commands.length > 0 ? 'command-suggestions' : undefined}
        aria-activedescendant={count > 0 ? `${mentioning ? 'file' : 'command'}-${highlight}` : undefined}
      />
      {mentioning ? (
        <SuggestionList
          prefix="file"
          label="Files"
          options={files.map((file) => ({ key: file, content: `@${file}` }))}
          highlight={highlight}
          choose={complete}
        />
      ) : commands.length > 0 ? (
        <SuggestionList
          prefix="command"
          label="Commands"
          options={commands.map((command) => ({
            key: command.name,
            content: (
              <>
                <strong>/{command.name}</strong> {command.description}
              </>
            ),
          }))}
          highlight={highlight}
          choose={complete}
        />
      ) : null}
      <div className="composer-buttons">
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-hidden="true"
          tabIndex={-1}
          onChange={(event) => {
            attachFiles([...(event.target.files ?? [])]);
            event.target.value = '';
          }}
        />
        <button type="button" onClick={() => picker.current?.click()}>
          <Paperclip aria-hidden size={16} />
          <span className="action-label">Attach files</span>
        </button>
        <button
          type="button"
          disabled={running || sending || text.trim() === '' || attachments.length > 0}
          title={attachments.length > 0 ? 'Attachments go to one agent at a time: send them on their own' : undefined}
          onClick={() => openAskSeveral()}
        >
          <Users aria-hidden size={16} />
          <span className="action-label">Ask several agents…</span>
        </button>
        {running ? (
          <button type="submit" disabled={!canQueue}>
            <ListPlus aria-hidden size={16} />
            <span className="action-label">Queue</span>
          </button>
        ) : (
          <button type="submit" disabled={!canSend} aria-describedby={blockedWhy ? 'send-blocked' : undefined}>
            <SendHorizontal aria-hidden size={16} />
            <span className="action-label">Send</span>
          </button>
        )}
        <button type="button" disabled={!running} onClick={() => void cancel()}>
          <Square aria-hidden size={16} />
          <span className="action-label">Stop</span>
        </button>
      </div>
    </form>
  );
}
