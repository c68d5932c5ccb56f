import { describe, expect, it } from 'vitest';
import { putBack, unsentText } from './composerText.js';

describe('the message box around a send', () => {
  it('is cleared when it still holds what was sent', () => {
    expect(unsentText('hello', 'hello')).toBe('');
  });

  it('keeps what was typed after sending, and drops only the sent part', () => {
    expect(unsentText('hello and more', 'hello')).toBe('and more');
    expect(unsentText('a new message', 'hello')).toBe('a new message');
    expect(unsentText('', 'hello')).toBe('');
  });

  it('puts a message back ahead of what is there', () => {
    expect(putBack('queued one', '')).toBe('queued one');
    expect(putBack('queued one', '  ')).toBe('queued one');
    expect(putBack('queued one', 'typed since')).toBe('queued one\ntyped since');
  });
});
