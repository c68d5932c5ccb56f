import { describe, expect, it } from 'vitest';
import { plainText } from './plainText.js';

describe('plainText', () => {
  it('leaves out emphasis, code marks, headings, quotes, table bars and link targets', () => {
    expect(plainText('Please **review** the `parser` module')).toBe('Please review the parser module');
    expect(plainText('# Title\n> quoted [the docs](https://x.y) | cell |')).toBe('Title\nquoted the docs cell ');
    expect(plainText('```ts\nconst a = 1;\n```')).toBe(' \nconst a = 1;\n ');
  });

  it("keeps a word's underscores where a search snippet's match markers cut it, and drops emphasis", () => {
    expect(plainText('call run_\u0002shellcommand\u0003 with _care_')).toBe('call run_\u0002shellcommand\u0003 with care');
    expect(plainText('\u0002run\u0003_shellcommand and SLOW_STREAM')).toBe('\u0002run\u0003_shellcommand and SLOW_STREAM');
  });
});
