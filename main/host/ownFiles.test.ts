import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ownFile, runFromSources } from './ownFiles.js';

describe('ownFile', () => {
  it('run from the sources, names the files the build copies by their place in the repository', () => {
    expect(runFromSources).toBe(true);
    expect(existsSync(ownFile('main/host/agents/registry/snapshot.json'))).toBe(true);
    expect(existsSync(ownFile('main/host/agents/agentLocks'))).toBe(true);
    expect(ownFile('main/host/ownFiles.test.ts')).toBe(fileURLToPath(import.meta.url));
  });
});
