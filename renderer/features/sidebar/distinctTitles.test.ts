import { describe, expect, it } from 'vitest';
import { distinctions } from './distinctTitles.js';

describe('distinctions', () => {
  it('leaves unique titles alone and tells shared ones apart by folder, start and, failing that, number', () => {
    const rows = [
      { conversationId: 'a', title: 'hi', cwd: '/work/alpha', createdAt: '2026-01-01T10:00:00Z' },
      { conversationId: 'b', title: 'hi', cwd: '/work/beta', createdAt: '2026-01-01T10:00:00Z' },
      { conversationId: 'c', title: 'hi', cwd: '/work/alpha', createdAt: '2026-01-01T10:00:10Z' },
      { conversationId: 'd', title: 'hi', cwd: '/work/alpha', createdAt: '2026-01-01T10:00:05Z' },
      { conversationId: 'e', title: 'Unique', cwd: '/work/alpha', createdAt: '2026-01-01T10:00:00Z' },
      { conversationId: 'f', title: '', cwd: '/x', createdAt: '2026-01-02T10:00:00Z' },
    ];
    const suffixes = distinctions(rows);
    expect(suffixes.has('e')).toBe(false);
    expect(suffixes.has('f')).toBe(false);
    expect(suffixes.get('b')).toMatch(/^beta · started /);
    expect(suffixes.get('a')).toMatch(/^alpha · started .* · #1$/);
    // Same folder and minute: numbered in order of starting.
    expect(suffixes.get('d')).toMatch(/ · #2$/);
    expect(suffixes.get('c')).toMatch(/ · #3$/);
    const shown = rows.slice(0, 4).map((row) => `${row.title}${suffixes.get(row.conversationId) ?? ''}`);
    expect(new Set(shown).size).toBe(4);
  });

  it('calls a copy Baton made for a branch "its own copy", never by its id', () => {
    const rows = [
      { conversationId: 'a', title: 'fix (branch)', cwd: '/work/app', createdAt: '2026-01-01T10:00:00Z' },
      {
        conversationId: 'b',
        title: 'fix (branch)',
        cwd: '/home/me/.baton/branches/050d7908-3c1e-4f55-9d51-2b8a1c0e9f11',
        createdAt: '2026-01-01T11:00:00Z',
      },
    ];
    const suffixes = distinctions(rows);
    expect(suffixes.get('a')).toMatch(/^app · started /);
    expect(suffixes.get('b')).toMatch(/^its own copy · started /);
  });
});
