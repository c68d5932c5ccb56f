import { describe, expect, it } from 'vitest';
import { sameData } from './sameData.js';

describe('sameData', () => {
  it('compares plain data all the way down', () => {
    const item = { kind: 'tool', key: '7', content: [{ type: 'diff', path: 'a.ts', lines: ['+x'] }], status: 'completed' };
    expect(sameData(item, structuredClone(item))).toBe(true);
    expect(sameData({ ...item, status: 'failed' }, item)).toBe(false);
    expect(sameData({ ...item, content: [{ ...item.content[0], lines: ['+y'] }] }, item)).toBe(false);
    expect(sameData([1, 2], [1, 2, 3])).toBe(false);
    expect(sameData([], {})).toBe(false);
    expect(sameData({ a: undefined }, {})).toBe(false);
    expect(sameData({ a: 1 }, { b: 1 })).toBe(false);
    expect(sameData(Number.NaN, Number.NaN)).toBe(true);
    expect(sameData(null, {})).toBe(false);
  });

  it('holds anything else the same only when it is the same object', () => {
    const map = new Map([['a', 1]]);
    expect(sameData(map, map)).toBe(true);
    expect(sameData(map, new Map([['a', 1]]))).toBe(false);
    expect(sameData(new Map(), new Map())).toBe(false);
    expect(sameData({ at: new Date(0) }, { at: new Date(0) })).toBe(false);
  });
});
