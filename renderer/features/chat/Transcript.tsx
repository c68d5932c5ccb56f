/** The transcript: one article per message, plus tool calls, permission questions and notices. */
import { useEffect, useRef, useState } from 'react';
import { fidelityBadge, fidelityDetail } from '../../../app/handoff/handoff.js';
import { TIMING_NAMES } from '../../../app/instructions/injectors.js';
import type { TranscriptItem, TranscriptState } from '../../../app/transcript/index.js';
import { Markdown } from '../../components/Markdown.js';
import { useCopy } from '../../components/useCopy.js';
import { useBaton } from '../../store/index.js';
import { selectHasEarlier } from '../../store/selectors/transcript.js';
import type { AuthMethodInfo } from '../../../app/errors.js';
import { ElicitationPrompt } from './ElicitationPrompt.js';
import { LogInPrompt } from './LogInPrompt.js';
import { PermissionPrompt } from './PermissionPrompt.js';
import { ToolContent } from './ToolContent.js';

/**
 * Shows a transcript, following the newest content while it streams — only while the person is
 * at the bottom: scrolling up to read stops it, and "Jump to latest" brings them back. Opened
 * from a search hit, it shows that message instead, marked, until new content arrives.
 */
export function Transcript({ transcript, focusSeq }: { transcript: TranscriptState | undefined; focusSeq: number | undefined }) {
  const hasEarlier = useBaton(selectHasEarlier);
  const showEarlier = useBaton((state) => state.showEarlier);
  const end = useRef<HTMLDivElement>(null);
  const section = useRef<HTMLElement>(null);
  const items = transcript?.items ?? [];
  const last = items.at(-1);
  const tick = last ? `${items.length}:${last.kind === 'agent' || last.kind === 'thought' ? last.text.length : 0}` : '0';
  const focusKey = focusSeq === undefined ? undefined : String(focusSeq);
  const focusShown = focusKey !== undefined && items.some((item) => item.key === focusKey);
  const [following, setFollowing] = useState(true);
  const conversationId = transcript?.conversationId;
  useEffect(() => setFollowing(true), [conversationId]);
  useEffect(() => {
    if (focusShown) {
      section.current?.querySelector(`[data-key="${focusKey}"]`)?.scrollIntoView({ block: 'center' });
    } else if (following) {
      end.current?.scrollIntoView({ block: 'end' });
    }
  }, [tick, focusShown, focusKey, following]);
  const onScroll = (): void => {
    const node = section.current;
    if (node) {
      setFollowing(node.scrollHeight - node.scrollTop - node.clientHeight < 48);
    }
  };
  if (!transcript || items.length === 0) {
    return (
      <section className="transcript transcript-empty" aria-label="Transcript">
        <p>Pick an agent and a working folder, then write your first message.</p>
      </section>
    );
  }
  return (
    <section ref={section} className="transcript" aria-label="Transcript" aria-busy={transcript.activeTurnId !== null} onScroll={onScroll}>
      {hasEarlier ? (
        <button type="button" className="show-earlier" onClick={() => void showEarlier()}>
          Show earlier messages
        </button>
      ) : null}
      {items.map((item) => (
        <div key={item.key} data-key={item.key} className={item.key === focusKey ? 'entry focused' : 'entry'}>
          <TranscriptEntry item={item} transcript={transcript} />
        </div>
      ))}
      {transcript.activeTurnId !== null ? <WorkingIndicator transcript={transcript} turnId={transcript.activeTurnId} /> : null}
      <div ref={end} />
      {!following ? (
        <button
          type="button"
          className="jump-to-latest"
          onClick={() => {
            setFollowing(true);
            end.current?.scrollIntoView({ block: 'end' });
          }}
        >
          Jump to latest
        </button>
      ) : null}
    </section>
  );
}

/** After this long without a word from the agent, the indicator says it is still waiting. */
const SILENT_AFTER_MS = 5_000;

/**
 * "Working…" with the time since the person's message; while the agent has not answered at all,
 * it says so. Ticks once a second only while a turn runs, so an idle window does no work.
 */
function WorkingIndicator({ transcript, turnId }: { transcript: TranscriptState; turnId: string }) {
  const turn = transcript.turns[turnId];
  const startedAt = turn ? Date.parse(turn.startedAt) : Date.now();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  const elapsedMs = Math.max(0, now - startedAt);
  const answered = transcript.items.some((item) => item.turnId === turnId && item.kind !== 'user');
  const elapsed = formatElapsed(elapsedMs);
  const agentName = turn?.agentName ?? transcript.agentName;
  // What it is doing now: the newest tool call of the turn that has not finished.
  const doing = transcript.items.findLast((item) => item.kind === 'tool' && item.turnId === turnId && (item.status === 'in_progress' || item.status === 'pending' || item.status === 'awaiting_permission'));
  return (
    <p className="working" role="timer" aria-label={`${agentName} is working`}>
      {!answered && elapsedMs >= SILENT_AFTER_MS
        ? `Waiting for ${agentName} to answer… ${elapsed}, nothing yet. Stop ends the turn.`
        : `${agentName} is working… ${elapsed}`}
      {doing?.kind === 'tool' ? <span className="working-now"> — now: {doing.title}{doing.status === 'awaiting_permission' ? ' (waiting for your answer)' : ''}</span> : null}
    </p>
  );
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const fullDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });

/** When a message was written. */
function MessageTime({ at }: { at: string }) {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? null : (
    <time className="message-time" dateTime={at} title={fullDate.format(date)}>
      {clock.format(date)}
    </time>
  );
}

/** Copy, and for the person's message "Edit and resend"; for the last reply "Retry". */
function MessageActions({ text, editable = false, retryTurnId }: { text: string; editable?: boolean; retryTurnId?: string | undefined }) {
  const editMessage = useBaton((state) => state.editMessage);
  const retry = useBaton((state) => state.retry);
  const [copied, copy] = useCopy();
  return (
    <span className="message-actions">
      <button type="button" onClick={() => copy(text)}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      {editable ? (
        <button type="button" onClick={() => editMessage(text)}>
          Edit and resend
        </button>
      ) : null}
      {retryTurnId ? (
        <button type="button" onClick={() => void retry(retryTurnId)}>
          Retry
        </button>
      ) : null}
    </span>
  );
}

/** "8 s", "2 min 05 s". */
function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** One clear state per tool call, in words. */
const TOOL_STATUS: Record<Extract<TranscriptItem, { kind: 'tool' }>['status'], string> = {
  pending: 'pending',
  awaiting_permission: 'awaiting your permission',
  in_progress: 'running',
  completed: 'done',
  failed: 'failed',
  rejected: 'rejected',
  cancelled: 'cancelled',
};

/** An icon per ACP tool kind. */
const TOOL_ICONS: Record<string, string> = { read: '📄', edit: '✏️', delete: '🗑', move: '↔', search: '🔍', execute: '▶', think: '💭', fetch: '🌐', switch_mode: '⇄' };

function TranscriptEntry({ item, transcript }: { item: TranscriptItem; transcript: TranscriptState }) {
  const { terminals } = transcript;
  switch (item.kind) {
    case 'user':
      return (
        <article className="message message-user" aria-label="You">
          <header className="author">
            You <MessageTime at={item.at} />
            <MessageActions text={item.text} editable />
          </header>
          <div className="plain-text">{item.text}</div>
        </article>
      );
    case 'agent': {
      const running = transcript.activeTurnId !== null;
      const lastReply = !running && transcript.items.findLast((candidate) => candidate.kind === 'agent') === item;
      return (
        <article className="message message-agent" aria-label={item.agentName}>
          <header className="author">
            {item.agentName} <MessageTime at={item.at} />
            <MessageActions text={item.text} retryTurnId={lastReply ? item.turnId : undefined} />
          </header>
          <Markdown text={item.text} />
        </article>
      );
    }
    case 'handoff': {
      // A switch marker (or an agent caught up after its session started again), with the path really taken.
      const label = item.fromAgentName ? `Switched from ${item.fromAgentName} to ${item.toAgentName}` : `${item.toAgentName} was caught up`;
      const { prepared } = item;
      const detail = prepared ? fidelityDetail(prepared) : '';
      return (
        <div className="handoff-marker" role="group" aria-label={label}>
          <p>
            <strong>{label}</strong>{' '}
            {prepared ? <span className={`badge fidelity fidelity-${prepared.fidelity}`}>{fidelityBadge(prepared.fidelity)}</span> : <span className="hint">preparing…</span>}
            {detail ? <span className="hint"> — {detail}</span> : null}
          </p>
          {prepared && prepared.text ? (
            <details>
              <summary>What {item.toAgentName} was given</summary>
              <div className="plain-text">{prepared.text}</div>
              <p className="hint">
                {prepared.uri ? `${prepared.uri} · ` : ''}
                {prepared.level === 'resource' ? 'sent as an embedded resource' : 'sent as a delimited text block'} · sha256 <code title={prepared.sha256}>{prepared.sha256.slice(0, 12)}</code>
              </p>
            </details>
          ) : null}
        </div>
      );
    }
    case 'injected':
      // Context Baton added from an injector: shown apart from the person's message, never as something they typed.
      return (
        <details className="injected" role="group" aria-label={`Injected context: ${item.injector}`}>
          <summary>
            Injected context: {item.injector} <span className="hint">({TIMING_NAMES[item.timing]}, {item.level}; added by Baton, not typed by you)</span>
          </summary>
          <div className="plain-text">{item.text}</div>
          <p className="hint">
            {item.uri ? `${item.uri} · ` : ''}sha256 <code title={item.sha256}>{item.sha256.slice(0, 12)}</code>
          </p>
        </details>
      );
    case 'thought':
      return (
        <details className="thought">
          <summary>Thinking</summary>
          <div className="plain-text">{item.text}</div>
        </details>
      );
    case 'tool':
      return (
        <div className={`tool-call tool-${item.status}`} role="group" aria-label={`Tool call: ${item.title}`}>
          {/* Open at first, so what it did stays in view (and in reach of screen readers); the person can fold it. */}
          <details open>
            <summary>
              <span className="tool-icon" aria-hidden="true">
                {TOOL_ICONS[item.toolKind ?? ''] ?? '⚙'}
              </span>{' '}
              <span className="tool-title">{item.title}</span> <span className={`tool-status status-${item.status}`}>{TOOL_STATUS[item.status]}</span>
            </summary>
            {item.content.map((content, index) => (
              <ToolContent key={index} content={content} terminals={terminals} title={item.title} />
            ))}
          </details>
        </div>
      );
    case 'plan':
      return (
        <ol className="plan" aria-label="Plan">
          {item.entries.map((entry, index) => (
            <li key={index} className={`plan-${entry.status}`}>
              {entry.content}
            </li>
          ))}
        </ol>
      );
    case 'permission': {
      const tool = transcript.items.find((candidate) => candidate.kind === 'tool' && candidate.turnId === item.turnId && candidate.toolCallId === item.toolCallId);
      return <PermissionPrompt item={item} agentName={transcript.turns[item.turnId]?.agentName ?? transcript.agentName} toolKind={tool?.kind === 'tool' ? tool.toolKind : undefined} />;
    }
    case 'elicitation':
      return <ElicitationPrompt item={item} />;
    case 'notice':
      return (
        <div className={`notice notice-${item.severity}`} role={item.severity === 'error' ? 'alert' : 'note'}>
          <p>{item.text}</p>
          {item.error?.code === 'AuthRequired' && Array.isArray(item.error.details?.methods) ? <LogInPrompt methods={item.error.details.methods as AuthMethodInfo[]} /> : null}
          {typeof item.error?.details?.stderrTail === 'string' && item.error.details.stderrTail ? (
            <details>
              <summary>Agent output</summary>
              <pre>{item.error.details.stderrTail}</pre>
            </details>
          ) : null}
        </div>
      );
  }
}
