/** The transcript: one article per message, plus tool calls, permission questions and notices. */
import { useEffect, useRef } from 'react';
import type { TranscriptItem, TranscriptState } from '../../../app/transcript/index.js';
import { Markdown } from '../../components/Markdown.js';
import { PermissionPrompt } from './PermissionPrompt.js';

/** Shows a transcript, following the newest content while it streams. */
export function Transcript({ transcript }: { transcript: TranscriptState | undefined }) {
  const end = useRef<HTMLDivElement>(null);
  const items = transcript?.items ?? [];
  const last = items.at(-1);
  const tick = last ? `${items.length}:${last.kind === 'agent' || last.kind === 'thought' ? last.text.length : 0}` : '0';
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [tick]);
  if (!transcript || items.length === 0) {
    return (
      <section className="transcript transcript-empty" aria-label="Transcript">
        <p>Pick an agent and a working folder, then write your first message.</p>
      </section>
    );
  }
  return (
    <section className="transcript" aria-label="Transcript" aria-live="polite" aria-busy={transcript.activeTurnId !== null}>
      {items.map((item) => (
        <TranscriptEntry key={item.key} item={item} />
      ))}
      {transcript.activeTurnId !== null ? <p className="working">{transcript.agentName} is working…</p> : null}
      <div ref={end} />
    </section>
  );
}

function TranscriptEntry({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case 'user':
      return (
        <article className="message message-user" aria-label="You">
          <header className="author">You</header>
          <div className="plain-text">{item.text}</div>
        </article>
      );
    case 'agent':
      return (
        <article className="message message-agent" aria-label={item.agentName}>
          <header className="author">{item.agentName}</header>
          <Markdown text={item.text} />
        </article>
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
          <span className="tool-title">{item.title}</span> <span className="tool-status">{item.status.replace('_', ' ')}</span>
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
    case 'permission':
      return <PermissionPrompt item={item} />;
    case 'notice':
      return (
        <div className={`notice notice-${item.severity}`} role={item.severity === 'error' ? 'alert' : 'note'}>
          <p>{item.text}</p>
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
