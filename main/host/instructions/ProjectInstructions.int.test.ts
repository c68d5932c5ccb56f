/**
 * A working folder's `.baton/instructions.md` and `.agents/instructions/` on real files, read on the
 * folder's machine (this computer, the loopback machine, over ssh as an ordinary account): found in
 * the folder or its repository root, never read through a link out of it, trusted by digest, and
 * trusted per machine (the same path on another machine is another folder).
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { writeInjector } from '../../../e2e/fixtures/dataFiles.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { definedEnv } from '../Host.js';
import { describeOnMachines, handTo, machinesSharingFiles } from '../machine/testMachines.kit.test.js';
import { EventStore } from '../store/EventStore.js';
import { ProjectInstructions, type FolderPlace } from './ProjectInstructions.js';

const env = definedEnv(process.env);
const thisComputer = new LocalMachine(env);
const stores: EventStore[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

/** Trust kept in a fresh store; only this computer is the host's own machine. */
function projects(): ProjectInstructions {
  const store = new EventStore(tempDir('project-store'));
  stores.push(store);
  return new ProjectInstructions(
    store,
    () => [],
    (machineId) => machineId === thisComputer.id,
  );
}

describeOnMachines(machinesSharingFiles(env), "a folder's instructions", (machine) => {
  /** The folder on the machine, with `folders` (the test's, with what it put in them) handed to the machine's account. */
  const on = (cwd: string, ...folders: string[]): FolderPlace => {
    handTo(machine(), ...(folders.length > 0 ? folders : [cwd]));
    return { machine: machine() ?? thisComputer, cwd };
  };

  it('are found in the repository root above a subfolder, and nowhere above the repository', async () => {
    const repo = tempDir('repo');
    mkdirSync(path.join(repo, '.git'));
    mkdirSync(path.join(repo, '.baton'));
    writeFileSync(path.join(repo, '.baton', 'instructions.md'), 'root rules');
    mkdirSync(path.join(repo, 'packages', 'app'), { recursive: true });
    const read = await projects().read(on(path.join(repo, 'packages', 'app'), repo));
    expect(read).toMatchObject({ folder: repo, text: 'root rules', state: 'untrusted' });
    const inner = tempDir('no-file');
    mkdirSync(path.join(inner, '.git'));
    expect((await projects().read(on(inner))).state).toBe('none');
  });

  it('are not read through a symlink that leads out of the folder, and cannot be trusted then', async () => {
    const outside = tempDir('outside');
    writeFileSync(path.join(outside, 'secret.md'), 'outside text');
    const work = tempDir('linked');
    mkdirSync(path.join(work, '.baton'));
    symlinkSync(path.join(outside, 'secret.md'), path.join(work, '.baton', 'instructions.md'));
    const project = projects();
    handTo(machine(), outside);
    const read = await project.read(on(work));
    expect(read.text).toBeNull();
    expect(read.problem).toMatch(/points outside/);
    await expect(project.trust(on(work), 'anything')).rejects.toThrow(/points outside/);
    expect(await project.trusted(on(work))).toBeNull();
  });

  it('are trusted as read, with the injectors, and an injector naming a file out of its folder is kept as refused', async () => {
    const work = tempDir('trusted');
    mkdirSync(path.join(work, '.baton'));
    writeFileSync(path.join(work, '.baton', 'instructions.md'), 'folder rules');
    writeInjector(path.join(work, '.agents', 'instructions'), 'style', { 'INSTRUCTIONS.md': 'Use short sentences.' });
    writeInjector(path.join(work, '.agents', 'instructions'), 'escape', {
      'manifest.json': { name: 'escape', when: 'every_turn', context: ['../../../../etc/hostname'] },
    });
    const project = projects();
    const read = await project.read(on(work));
    expect(read.injectors).toEqual([
      {
        dir: 'escape',
        files: { 'manifest.json': expect.any(String) },
        problem: expect.stringMatching(/climbs out of the injector's folder/),
      },
      { dir: 'style', files: { 'INSTRUCTIONS.md': 'Use short sentences.' } },
    ]);
    await project.trust(on(work), read.sha256!);
    // What reaches agents is the copy trusted, not the file as it is now.
    writeFileSync(path.join(work, '.baton', 'instructions.md'), 'changed after the trust');
    expect(await project.trusted(on(work))).toMatchObject({ folder: work, text: 'folder rules' });
    expect((await project.read(on(work))).state).toBe('changed');
  });
});

describe("a folder's trust", () => {
  it("is kept per machine: this computer's trust of a path does not reach the same path on another machine", async () => {
    const work = tempDir('per-machine');
    mkdirSync(path.join(work, '.baton'));
    writeFileSync(path.join(work, '.baton', 'instructions.md'), 'here only');
    const project = projects();
    const here: FolderPlace = { machine: thisComputer, cwd: work };
    // Another machine that sees the same files (as a machine over ssh to this computer would).
    const there: FolderPlace = { machine: new LocalMachine(env, undefined, 'ssh:elsewhere', 'elsewhere'), cwd: work };
    await project.trust(here, (await project.read(here)).sha256!);
    expect((await project.read(there)).state).toBe('untrusted');
    expect(await project.trusted(there)).toBeNull();
    await project.trust(there, (await project.read(there)).sha256!);
    await project.untrust(here);
    expect(await project.trusted(here)).toBeNull();
    expect(await project.trusted(there)).toMatchObject({ text: 'here only' });
  });
});
