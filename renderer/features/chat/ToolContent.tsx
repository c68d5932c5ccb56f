/** What a tool call carries: text, a file edit shown as a line diff, or a terminal's command and output. */
import type { TerminalView, TranscriptItem } from '../../../app/transcript/index.js';
import { lineDiff } from '../../../app/text/lineDiff.js';
import { Markdown } from '../../components/Markdown.js';

type Content = Extract<TranscriptItem, { kind: 'tool' }>['content'][number];

/** Lines of a diff shown before the rest is folded away. */
const DIFF_LINES_SHOWN = 400;

function exitText(terminal: TerminalView): string {
  if (!terminal.exit) {
    return 'running…';
  }
  return terminal.exit.signal ? `ended by ${terminal.exit.signal}` : `exit code ${terminal.exit.exitCode ?? 'unknown'}`;
}

/** One piece of a tool call's content. */
export function ToolContent({ content, terminals, title }: { content: Content; terminals: Record<string, TerminalView>; title: string }) {
  switch (content.type) {
    case 'text':
      // Agents write tool output as Markdown (Claude fences shell output as a console block).
      return (
        <div className="tool-text">
          <Markdown text={content.text} />
        </div>
      );
    case 'other':
      return <p className="tool-other muted">{content.summary}</p>;
    case 'diff': {
      const lines = lineDiff(content.oldText, content.newText);
      return (
        <figure className="tool-diff" aria-label={`Changes to ${content.path}`}>
          <figcaption>{content.path}{content.oldText === null ? ' (new file)' : ''}</figcaption>
          <pre>
            {lines.slice(0, DIFF_LINES_SHOWN).map((line, index) => (
              <span key={index} className={`diff-${line.op}`}>
                {line.op === 'added' ? '+ ' : line.op === 'removed' ? '- ' : '  '}
                {line.text}
              </span>
            ))}
          </pre>
          {lines.length > DIFF_LINES_SHOWN ? <p className="muted">… {lines.length - DIFF_LINES_SHOWN} more lines</p> : null}
        </figure>
      );
    }
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
          <p className={terminal.exit && (terminal.exit.signal || terminal.exit.exitCode !== 0) ? 'terminal-exit terminal-exit-failed' : 'terminal-exit'}>
            {exitText(terminal)}
            {terminal.truncated ? ' · output shortened in the transcript' : ''}
          </p>
        </figure>
      );
    }
  }
}
