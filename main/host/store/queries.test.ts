import { describe, expect, it } from 'vitest';
import { toFtsQuery } from './queries.js';

describe('toFtsQuery', () => {
  it('requires every word, the last also as a prefix', () => {
    expect(toFtsQuery('velvet hamm')).toBe('"velvet" "hamm"*');
  });
  it('treats operators and quotes as text', () => {
    expect(toFtsQuery('a" OR NEAR(b')).toBe('"a" "OR" "NEAR" "b"*');
    expect(toFtsQuery('  -*^:  ')).toBeUndefined();
  });
  it('keeps letters of any script', () => {
    expect(toFtsQuery('café Straße 東京')).toBe('"café" "Straße" "東京"*');
  });
});
