import { describe, expect, it } from 'vitest';
import { saidOf } from './saidOf.js';

describe('what an option says under its name', () => {
  it('leaves out the name it starts with, and says nothing when that is all', () => {
    expect(saidOf('Opus 5.5', 'Opus 5.5 · Best for complex work')).toBe('Best for complex work');
    expect(saidOf('Sonnet', 'Sonnet - fast')).toBe('fast');
    expect(saidOf('Opus 5.5', 'Opus 5.5')).toBeUndefined();
    expect(saidOf('Default', 'Require approval for file edits')).toBe('Require approval for file edits');
    expect(saidOf('Plan', 'Planning first')).toBe('Planning first');
    expect(saidOf('Plan', undefined)).toBeUndefined();
  });
});
