/**
 * An agent's request for permission, inline and unmistakable: "<Agent> wants to <kind>: <title>",
 * every option it offered (allow once first, "always" options set apart), each with a number key.
 * Focus moves to the question when it appears (unless another open question has it) and back to
 * the message box once it is answered. The number keys answer the question that has focus, or the
 * only one open: with several open, one without focus shows no keys and takes none
 * (`openQuestions.ts`). Answered only by the person; an answered question shows what was chosen.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { TranscriptItem } from '../../../app/transcript/index.js';
import { useBaton } from '../../store/index.js';
import { useScopedConversation } from '../../components/conversationScope.js';
import { openQuestion, openQuestionCount, useOpenQuestionCount } from './openQuestions.js';
import { ToolInput } from './ToolInput.js';

type PermissionItem = Extract<TranscriptItem, { kind: 'permission' }>;

const KIND_WORDS: Record<string, string> = {
  edit: 'edit a file',
  delete: 'delete a file',
  move: 'move a file',
  read: 'read a file',
  execute: 'run a command',
  search: 'search',
  fetch: 'fetch from the web',
  think: 'think it through',
  switch_mode: 'change its mode',
};

const ORDER: Record<PermissionItem['options'][number]['kind'], number> = {
  allow_once: 0,
  allow_always: 1,
  reject_once: 2,
  reject_always: 3,
};

/** True while the person types in a field (the number keys are theirs there). */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) {
    return false;
  }
  if (target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') {
    return true;
  }
  return (
    target instanceof HTMLInputElement &&
    !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(target.type)
  );
}

/** The question, its options, and later the answer given. */
export function PermissionPrompt({
  item,
  agentName,
  toolKind,
  toolInput,
}: {
  item: PermissionItem;
  agentName: string;
  toolKind: string | undefined;
  toolInput?: unknown;
}) {
  const answerPermission = useBaton((state) => state.answerPermission);
  const scoped = useScopedConversation();
  const focusMessageBox = useBaton((state) => state.focusMessageBox);
  const group = useRef<HTMLDivElement>(null);
  const options = useMemo(() => [...item.options].sort((a, b) => ORDER[a.kind] - ORDER[b.kind]), [item.options]);
  const answered = item.decision !== undefined;
  const chosen = item.decision ? item.options.find((option) => option.optionId === item.decision?.optionId) : undefined;
  const question = `${agentName} wants to ${KIND_WORDS[toolKind ?? ''] ?? 'use a tool'}: ${item.title}`;
  const [focused, setFocused] = useState(false);
  const openCount = useOpenQuestionCount();
  useEffect(() => {
    if (answered) {
      return undefined;
    }
    // Never from another open question: the person may be about to answer that one.
    if (!document.activeElement?.closest('.permission-open')) {
      group.current?.querySelector<HTMLButtonElement>('button')?.focus();
    }
    return openQuestion(group);
  }, [answered]);
  // Its keys are shown (and taken) while it has focus, or while it is the only question open.
  const keyed = !answered && (focused || openCount <= 1);
  const answer = (optionId: string): void => {
    // Back to the message box after answering, unless the question was an attempt's (shown beside the conversation).
    void answerPermission(item.requestId, optionId, scoped).then(() => (scoped === undefined ? focusMessageBox() : undefined));
  };
  // The number keys answer from anywhere while this is the only open question, unless the person is
  // typing in a field or a dialog is open; inside the question its own handler answers.
  const answerRef = useRef(answer);
  answerRef.current = answer;
  useEffect(() => {
    if (answered) {
      return undefined;
    }
    const onKey = (event: KeyboardEvent): void => {
      const index = Number(event.key) - 1;
      const own = group.current;
      if (
        event.defaultPrevented ||
        event.altKey ||
        event.ctrlKey ||
        event.metaKey ||
        !Number.isInteger(index) ||
        index < 0 ||
        index >= options.length ||
        !own
      ) {
        return;
      }
      if (
        typingIn(event.target) ||
        (event.target instanceof Node && own.contains(event.target)) ||
        document.querySelector('dialog[open]') ||
        openQuestionCount() !== 1
      ) {
        return;
      }
      event.preventDefault();
      answerRef.current(options[index]!.optionId);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [answered, options]);
  return (
    <div
      ref={group}
      className={answered ? 'permission permission-answered' : 'permission permission-open'}
      role="group"
      aria-label={`Permission: ${item.title}`}
      onFocus={() => setFocused(true)}
      onBlur={(event) => setFocused(event.currentTarget.contains(event.relatedTarget))}
      onKeyDown={(event) => {
        const index = Number(event.key) - 1;
        if (
          !answered &&
          !event.altKey &&
          !event.ctrlKey &&
          !event.metaKey &&
          Number.isInteger(index) &&
          index >= 0 &&
          index < options.length
        ) {
          event.preventDefault();
          answer(options[index]!.optionId);
        }
      }}
    >
      <p className="permission-title">
        <strong>{question}</strong>
      </p>
      {answered ? null : <ToolInput input={item.rawInput ?? toolInput} toolKind={toolKind} />}
      {answered ? (
        <>
          <p className="permission-decision">✓ {chosen ? `You chose: ${chosen.name}` : 'Withdrawn: the reply ended before an answer.'}</p>
          {chosen?.kind.endsWith('always') ? <AlwaysNote item={item} agentName={agentName} /> : null}
        </>
      ) : (
        <>
          <div className="permission-options">
            {options.map((option, index) => (
              <button
                key={option.optionId}
                type="button"
                className={`${option.kind.startsWith('allow') ? 'allow' : 'reject'}${option.kind.endsWith('always') ? ' always' : ''}`}
                aria-keyshortcuts={keyed && index < 9 ? String(index + 1) : undefined}
                onClick={() => answer(option.optionId)}
              >
                {keyed && index < 9 ? <kbd aria-hidden="true">{index + 1}</kbd> : null} {option.name}
                {option.kind.endsWith('always') ? (
                  <span className="always-note" aria-hidden="true">
                    {' '}
                    (remembered)
                  </span>
                ) : null}
              </button>
            ))}
          </div>
          <p className="hint">
            {keyed
              ? 'Press a number to answer. Nothing runs until you do.'
              : 'Several questions are open: move to this one to answer it with a number. Nothing runs until you do.'}
          </p>
        </>
      )}
    </div>
  );
}

/** Under an "always" answer: where it is listed, or that it was revoked (and what the agent may still keep). */
function AlwaysNote({ item, agentName }: { item: PermissionItem; agentName: string }) {
  const openSettings = useBaton((state) => state.openSettings);
  if (item.revoked) {
    return (
      <p className="permission-revoked">
        Revoked {new Date(item.revoked.at).toLocaleString()}: {agentName} starts afresh for its next message, so rules it kept for the
        session are gone.{item.revoked.note ? ` ${item.revoked.note}` : ''}
      </p>
    );
  }
  return (
    <p className="muted">
      {agentName} remembers this answer.{' '}
      <button type="button" className="link-button" onClick={() => void openSettings('permissions')}>
        Review or revoke it in Settings
      </button>
    </p>
  );
}
