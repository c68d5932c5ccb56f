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

  it('puts a message back alone, setting an unsent draft aside whole instead of gluing it on', () => {
    expect(putBack('queued one', '', undefined)).toEqual({ box: 'queued one', aside: undefined });
    expect(putBack('queued one', '  ', 'older')).toEqual({ box: 'queued one', aside: 'older' });
    expect(putBack('queued one', 'typed since', undefined)).toEqual({ box: 'queued one', aside: 'typed since' });
    expect(putBack('edit me', 'typed since', 'older')).toEqual({ box: 'edit me', aside: 'typed since\n\nolder' });
    // Putting back what the box already holds sets nothing aside.
    expect(putBack('same', 'same', undefined)).toEqual({ box: 'same', aside: undefined });
  });
});
