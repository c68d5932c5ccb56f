/**
 * A file edit from a tool call (ACP diff content), in a unified or a side-by-side view, computed
 * with the `diff` library. A rejected edit keeps showing what was proposed.
 */
import { diffLines } from 'diff';
import { useMemo, useState } from 'react';

/** Lines shown before the rest is folded away. */
const LINES_SHOWN = 400;

type Line = { op: 'added' | 'removed' | 'same'; text: string };
type Row = { left: Line | null; right: Line | null };

function linesOf(oldText: string | null, newText: string): Line[] {
  const lines: Line[] = [];
  for (const change of diffLines(oldText ?? '', newText)) {
    const op = change.added ? 'added' : change.removed ? 'removed' : 'same';
    for (const text of change.value.replace(/\n$/, '').split('\n')) {
      lines.push({ op, text });
    }
  }
  return lines;
}

/** Pairs removed lines with the added lines that replace them, for the side-by-side view. */
function rowsOf(lines: readonly Line[]): Row[] {
  const rows: Row[] = [];
  for (let index = 0; index < lines.length;) {
    const line = lines[index]!;
    if (line.op === 'same') {
      rows.push({ left: line, right: line });
      index += 1;
      continue;
    }
    const removed: Line[] = [];
    const added: Line[] = [];
    while (index < lines.length && lines[index]!.op === 'removed') {
      removed.push(lines[index++]!);
    }
    while (index < lines.length && lines[index]!.op === 'added') {
      added.push(lines[index++]!);
    }
    for (let pair = 0; pair < Math.max(removed.length, added.length); pair += 1) {
      rows.push({ left: removed[pair] ?? null, right: added[pair] ?? null });
    }
  }
  return rows;
}

const SIGN = { added: '+ ', removed: '- ', same: '  ' } as const;

/** The diff of one file. */
export function FileDiff({ path, oldText, newText }: { path: string; oldText: string | null; newText: string }) {
  const [split, setSplit] = useState(false);
  const lines = useMemo(() => linesOf(oldText, newText), [oldText, newText]);
  const added = lines.filter((line) => line.op === 'added').length;
  const removed = lines.filter((line) => line.op === 'removed').length;
  return (
    <figure className="tool-diff" aria-label={`Changes to ${path}`}>
      <figcaption>
        <span>
          {path}
          {oldText === null ? ' (new file)' : ''} <span className="diff-added">+{added}</span>{' '}
          <span className="diff-removed">−{removed}</span>
        </span>
        <button type="button" className="diff-view" aria-pressed={split} onClick={() => setSplit(!split)}>
          Side by side
        </button>
      </figcaption>
      {split ? (
        <div className="diff-split" role="table" aria-label={`Side by side changes to ${path}`}>
          {rowsOf(lines.slice(0, LINES_SHOWN)).map((row, index) => (
            <div key={index} role="row" className="diff-row">
              <pre role="cell" className={row.left ? `diff-${row.left.op}` : 'diff-empty'}>
                {row.left?.text ?? ''}
              </pre>
              <pre role="cell" className={row.right ? `diff-${row.right.op}` : 'diff-empty'}>
                {row.right?.text ?? ''}
              </pre>
            </div>
          ))}
        </div>
      ) : (
        <pre>
          {lines.slice(0, LINES_SHOWN).map((line, index) => (
            <span key={index} className={`diff-${line.op}`}>
              {SIGN[line.op]}
              {line.text}
            </span>
          ))}
        </pre>
      )}
      {lines.length > LINES_SHOWN ? <p className="muted">… {lines.length - LINES_SHOWN} more lines</p> : null}
    </figure>
  );
}
