/** What a tool call carries: text, a file edit shown as a line diff, or a terminal's command and output. */
import type { TerminalView, TranscriptItem } from '../../../app/transcript/index.js';
import { Markdown } from '../../components/Markdown.js';
import { FileDiff } from './FileDiff.js';

type Content = Extract<TranscriptItem, { kind: 'tool' }>['content'][number];

/** Agent-internal notes in tool output (Claude's `<system-reminder>` blocks): folded away, not printed raw. */
const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

type ToolStatus = Extract<TranscriptItem, { kind: 'tool' }>['status'];

/**
 * How the terminal ended, or, while it has not, what its tool call's one status says (never "running" for a command that waits for the
 * person).
 */
function exitText(terminal: TerminalView, status: ToolStatus): string {
  if (!terminal.exit) {
    return status === 'awaiting_permission'
      ? 'not run yet'
      : status === 'pending'
        ? 'not started'
        : status === 'in_progress'
          ? 'running…'
          : 'no exit code reported';
  }
  return terminal.exit.signal ? `ended by ${terminal.exit.signal}` : `exit code ${terminal.exit.exitCode ?? 'unknown'}`;
}

/** One piece of a tool call's content. */
export function ToolContent({
  content,
  terminals,
  title,
  status,
}: {
  content: Content;
  terminals: Record<string, TerminalView>;
  title: string;
  status: ToolStatus;
}) {
  switch (content.type) {
    case 'text': {
      // Agents write tool output as Markdown (Claude fences shell output as a console block).
      const notes = content.text.match(REMINDER) ?? [];
      const text = content.text.replace(REMINDER, '').trim();
      return (
        <div className="tool-text">
          {text ? <Markdown text={text} /> : null}
          {notes.length > 0 ? (
            <details className="agent-notes">
              <summary>Notes the agent added for itself ({notes.length})</summary>
              <pre>{notes.map((note) => note.replace(/<\/?system-reminder>/g, '').trim()).join('\n\n')}</pre>
            </details>
          ) : null}
        </div>
      );
    }
    case 'other':
      return <p className="tool-other muted">{content.summary}</p>;
    case 'diff':
      return <FileDiff path={content.path} oldText={content.oldText} newText={content.newText} />;
    case 'terminal': {
      const terminal = terminals[content.terminalId];
      if (!terminal) {
        return <p className="muted">Terminal {content.terminalId} (not recorded)</p>;
      }
      return (
        <figure className="tool-terminal" aria-label={`Terminal: ${terminal.command || title}`}>
          <figcaption>
            <code>$ {terminal.command || title}</code> {terminal.cwd ? <span className="muted">in {terminal.cwd}</span> : null}
          </figcaption>
          <pre className="terminal-output">{terminal.output || (terminal.exit ? '(no output)' : '')}</pre>
          <p
            className={
              terminal.exit && (terminal.exit.signal || terminal.exit.exitCode !== 0)
                ? 'terminal-exit terminal-exit-failed'
                : 'terminal-exit'
            }
          >
            {exitText(terminal, status)}
            {terminal.truncated ? ' · output shortened in the transcript' : ''}
          </p>
        </figure>
      );
    }
  }
}
