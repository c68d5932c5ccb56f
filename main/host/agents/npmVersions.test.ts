import { describe, expect, it } from 'vitest';
import { atVersion, exactVersionOf, newerVersions } from './npmVersions.js';

describe("an agent's npm package at another version", () => {
  it('lists the released versions after a pinned one, oldest first', () => {
    const viewed = JSON.stringify(['1.0.9', '2.18.0', '3.0.57', '3.0.61', '3.0.62', '3.0.64', '3.0.65', '3.1.0-beta.1']);
    expect(newerVersions('cline@3.0.55', viewed)).toEqual(['3.0.57', '3.0.61', '3.0.62', '3.0.64', '3.0.65']);
    expect(newerVersions('@scope/agent@1.0.0', '"1.2.0"')).toEqual(['1.2.0']);
    expect(newerVersions('cline@3.0.65', viewed)).toEqual([]);
    expect(newerVersions('cline', viewed)).toEqual([]);
    expect(newerVersions('cline@latest', viewed)).toEqual([]);
    expect(newerVersions('cline@3.0.55', 'npm error 404')).toEqual([]);
  });

  it('moves a spec to the version agreed to, scoped or not', () => {
    expect(atVersion('cline@3.0.55', '3.0.57')).toBe('cline@3.0.57');
    expect(atVersion('@kilocode/cli@7.8.1', '7.8.2')).toBe('@kilocode/cli@7.8.2');
    expect(exactVersionOf('@kilocode/cli@7.8.1')).toBe('7.8.1');
    expect(exactVersionOf('@kilocode/cli')).toBeUndefined();
  });
});
