import { describe, expect, it } from 'vitest';
import { markdownBlocks, SEGMENT_CHARS } from './markdownBlocks.js';

const texts = (markdown: string): string[] => markdownBlocks(markdown).map((block) => block.text);

describe('markdownBlocks', () => {
  it('splits at blank lines between blocks', () => {
    expect(texts('# Title\n\nA paragraph\nwith two lines.\n\n> quoted\n')).toEqual(['# Title', 'A paragraph\nwith two lines.', '> quoted']);
  });

  it('keeps a fenced code block with blank lines whole, and an unclosed fence open to the end', () => {
    expect(texts('Before\n\n```ts\nconst a = 1;\n\n\nconst b = 2;\n```\n\nAfter')).toEqual([
      'Before',
      '```ts\nconst a = 1;\n\n\nconst b = 2;\n```',
      'After',
    ]);
    expect(texts('```\nopen\n\nstill code')).toEqual(['```\nopen\n\nstill code']);
    // A shorter or different fence does not close it.
    expect(texts('````\na\n```\n\nb\n````\n\nc')).toEqual(['````\na\n```\n\nb\n````', 'c']);
  });

  it('keeps a loose list in one block, items and indented continuations alike', () => {
    expect(texts('1. one\n\n2. two\n\n   more of two\n\nAfter the list')).toEqual(['1. one\n\n2. two\n\n   more of two', 'After the list']);
  });

  it('never changes a closed block as text is appended', () => {
    const full = 'First paragraph.\n\n```js\nlet x;\n```\n\n- a\n- b\n\nLast one grows';
    let previous: string[] = [];
    for (let end = 1; end <= full.length; end += 1) {
      const now = texts(full.slice(0, end));
      // Every block but the last (still open) stays as it was.
      expect(now.slice(0, Math.max(0, previous.length - 1))).toEqual(previous.slice(0, Math.max(0, previous.length - 1)));
      previous = now;
    }
    expect(previous).toEqual(['First paragraph.', '```js\nlet x;\n```', '- a\n- b', 'Last one grows']);
  });

  it('cuts a long paragraph at spaces outside inline spans, and earlier cuts never move', () => {
    const words = Array.from({ length: 2_000 }, (_, index) =>
      index === 300
        ? '`code with spaces and more words than fit in the rest of a segment`'
        : index % 50 === 1
          ? '**bold words here**'
          : 'word',
    ).join(' ');
    const block = markdownBlocks(words)[0]!;
    expect(block.segments!.length).toBeGreaterThan(2);
    expect(block.segments!.join(' ')).toBe(words);
    for (const segment of block.segments!) {
      expect((segment.match(/`/g) ?? []).length % 2).toBe(0);
      expect((segment.match(/\*/g) ?? []).length % 2).toBe(0);
    }
    for (const segment of block.segments!.slice(0, -1)) {
      expect(segment.length).toBeGreaterThanOrEqual(SEGMENT_CHARS);
    }
    const shorter = markdownBlocks(words.slice(0, Math.floor(words.length * 0.7)))[0]!;
    expect(block.segments!.slice(0, shorter.segments!.length - 1)).toEqual(shorter.segments!.slice(0, -1));
  });

  it('does not cut a paragraph that a later line makes a heading or a table, nor other blocks', () => {
    const long = 'word '.repeat(SEGMENT_CHARS);
    expect(markdownBlocks(`${long}\n---`)[0]!.segments).toBeUndefined();
    expect(markdownBlocks(`- ${long}`)[0]!.segments).toBeUndefined();
    expect(markdownBlocks(`| a | b |\n| - | - |\n| ${long} | x |`)[0]!.segments).toBeUndefined();
  });
});
