import { describe, expect, it } from 'vitest';
import { attentionCount } from './attention.js';

describe("the app icon's count", () => {
  it('is the count the page puts before its title, and zero without one', () => {
    expect(attentionCount('(2) Baton')).toBe(2);
    expect(attentionCount('(12) Baton')).toBe(12);
    expect(attentionCount('Baton')).toBe(0);
    expect(attentionCount('(x) Baton')).toBe(0);
    expect(attentionCount('Baton (3)')).toBe(0);
  });
});
