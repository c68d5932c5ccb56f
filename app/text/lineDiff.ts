/** A line diff for showing an agent's edits: which lines were kept, removed and added. */

/** One line of a diff. */
export type DiffLine = { op: 'same' | 'removed' | 'added'; text: string };

/** Above this many lines on either side, the diff is shown as whole removal and addition. */
const MAX_LINES = 2_000;

/**
 * Lines of `oldText` → `newText` by longest common subsequence. A missing old text (a new file)
 * is all additions. Large inputs fall back to removing all and adding all.
 */
export function lineDiff(oldText: string | null, newText: string): DiffLine[] {
  const before = oldText === null || oldText === '' ? [] : oldText.split('\n');
  const after = newText === '' ? [] : newText.split('\n');
  if (before.length > MAX_LINES || after.length > MAX_LINES) {
    return [...before.map((text) => ({ op: 'removed' as const, text })), ...after.map((text) => ({ op: 'added' as const, text }))];
  }
  const rows = before.length + 1;
  const cols = after.length + 1;
  // lengths[i * cols + j]: LCS length of before[i:] and after[j:].
  const lengths = new Uint32Array(rows * cols);
  for (let i = before.length - 1; i >= 0; i -= 1) {
    for (let j = after.length - 1; j >= 0; j -= 1) {
      lengths[i * cols + j] = before[i] === after[j] ? lengths[(i + 1) * cols + j + 1]! + 1 : Math.max(lengths[(i + 1) * cols + j]!, lengths[i * cols + j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length && j < after.length) {
    if (before[i] === after[j]) {
      lines.push({ op: 'same', text: before[i]! });
      i += 1;
      j += 1;
    } else if (lengths[(i + 1) * cols + j]! >= lengths[i * cols + j + 1]!) {
      lines.push({ op: 'removed', text: before[i]! });
      i += 1;
    } else {
      lines.push({ op: 'added', text: after[j]! });
      j += 1;
    }
  }
  for (; i < before.length; i += 1) {
    lines.push({ op: 'removed', text: before[i]! });
  }
  for (; j < after.length; j += 1) {
    lines.push({ op: 'added', text: after[j]! });
  }
  return lines;
}
