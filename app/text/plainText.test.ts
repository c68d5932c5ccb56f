import { describe, expect, it } from 'vitest';
import { plainText } from './plainText.js';

describe('plainText', () => {
  it('leaves out emphasis, code marks, headings, quotes, table bars and link targets', () => {
    expect(plainText('Please **review** the `parser` module')).toBe('Please review the parser module');
    expect(plainText('# Title\n> quoted [the docs](https://x.y) | cell |')).toBe('Title\nquoted the docs cell ');
    expect(plainText('```ts\nconst a = 1;\n```')).toBe(' \nconst a = 1;\n ');
  });
});
