/**
 * A working folder's `.baton/instructions.md` on real files: found in the folder or its repository root, never read through a link out of
 * it, trusted by digest.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { EventStore } from '../store/EventStore.js';
import { ProjectInstructions } from './ProjectInstructions.js';

const stores: EventStore[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

function projects(): ProjectInstructions {
  const store = new EventStore(tempDir('project-store'));
  stores.push(store);
  return new ProjectInstructions(store);
}

describe("a folder's instructions", () => {
  it('are found in the repository root above a subfolder, and nowhere above the repository', () => {
    const repo = tempDir('repo');
    mkdirSync(path.join(repo, '.git'));
    mkdirSync(path.join(repo, '.baton'));
    writeFileSync(path.join(repo, '.baton', 'instructions.md'), 'root rules');
    mkdirSync(path.join(repo, 'packages', 'app'), { recursive: true });
    const read = projects().read(path.join(repo, 'packages', 'app'));
    expect(read).toMatchObject({ text: 'root rules', state: 'untrusted' });
    const inner = tempDir('no-file');
    mkdirSync(path.join(inner, '.git'));
    expect(projects().read(inner).state).toBe('none');
  });

  it('are not read through a symlink that leads out of the folder, and cannot be trusted then', () => {
    const outside = tempDir('outside');
    writeFileSync(path.join(outside, 'secret.md'), 'outside text');
    const work = tempDir('linked');
    mkdirSync(path.join(work, '.baton'));
    symlinkSync(path.join(outside, 'secret.md'), path.join(work, '.baton', 'instructions.md'));
    const project = projects();
    const read = project.read(work);
    expect(read.text).toBeNull();
    expect(read.problem).toMatch(/points outside/);
    expect(() => project.trust(work, 'anything')).toThrow(/points outside/);
    expect(project.trustedText(work)).toBeNull();
  });
});
