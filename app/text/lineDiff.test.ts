import { describe, expect, it } from 'vitest';
import { lineDiff } from './lineDiff.js';

describe('lineDiff', () => {
  it('marks kept, removed and added lines in order', () => {
    expect(lineDiff('a\nb\nc', 'a\nB\nc\nd')).toEqual([
      { op: 'same', text: 'a' },
      { op: 'removed', text: 'b' },
      { op: 'added', text: 'B' },
      { op: 'same', text: 'c' },
      { op: 'added', text: 'd' },
    ]);
  });

  it('a new file is all additions', () => {
    expect(lineDiff(null, 'x\ny')).toEqual([
      { op: 'added', text: 'x' },
      { op: 'added', text: 'y' },
    ]);
  });

  it('very large inputs fall back to remove-all, add-all', () => {
    const big = Array.from({ length: 2_500 }, (_, index) => `line ${index}`).join('\n');
    const diff = lineDiff(big, 'one');
    expect(diff.filter((line) => line.op === 'removed')).toHaveLength(2_500);
    expect(diff.at(-1)).toEqual({ op: 'added', text: 'one' });
  });
});
