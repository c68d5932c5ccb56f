// @vitest-environment happy-dom
/** A file edit from a tool call: counts, the unified view, the side-by-side view, a new file, a long diff folded. */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FileDiff } from './FileDiff.js';

afterEach(cleanup);

describe('FileDiff', () => {
  it('counts and marks the added and removed lines in the unified view', () => {
    const { container } = render(<FileDiff path="notes.md" oldText={'one\ntwo\nthree\n'} newText={'one\n2\nthree\nfour\n'} />);
    const figure = screen.getByRole('figure', { name: 'Changes to notes.md' });
    expect(figure.querySelector('.diff-added')?.textContent).toBe('+2');
    expect(figure.querySelector('.diff-removed')?.textContent).toBe('−1');
    expect([...container.querySelectorAll('pre > span')].map((line) => line.textContent)).toEqual([
      '  one',
      '- two',
      '+ 2',
      '  three',
      '+ four',
    ]);
  });

  it('pairs a removed line with the one replacing it side by side', () => {
    render(<FileDiff path="a.txt" oldText={'keep\nold\n'} newText={'keep\nnew\n'} />);
    const toggle = screen.getByRole('button', { name: 'Side by side' });
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    const rows = screen
      .getAllByRole('row')
      .map((row) => [...row.querySelectorAll('[role="cell"]')].map((cell) => `${cell.className}:${cell.textContent}`));
    expect(rows).toEqual([
      ['diff-same:keep', 'diff-same:keep'],
      ['diff-removed:old', 'diff-added:new'],
    ]);
  });

  it('says a new file is new, and folds a long diff after 400 lines', () => {
    const text = Array.from({ length: 450 }, (_, index) => `line ${index}`).join('\n');
    render(<FileDiff path="big.txt" oldText={null} newText={text} />);
    expect(screen.getByRole('figure').textContent).toContain('big.txt (new file)');
    expect(screen.getByText('… 50 more lines')).toBeTruthy();
  });
});
