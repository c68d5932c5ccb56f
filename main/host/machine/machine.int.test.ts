/**
 * One contract for every machine, run against this computer (`LocalMachine`) and against the
 * machine server behind the protocol (`LoopbackMachine`: the built server as a local child), with
 * real processes, files, folders, watches and git repositories:
 * - processes: stdin to stdout, error output kept, exit codes, a missing program said as ENOENT,
 *   and disposing ends the whole group (a grandchild too);
 * - commands run to their end, and executables found on a PATH;
 * - files: confined writes (never through a planted link), bounded reads, listings, real paths, renames;
 * - a checkpoint's scan: a walk, then only what changed;
 * - a folder watch hears a new file;
 * - a git worktree made and removed through the machine, its branch with it; a plain copy made
 *   (in several requests when large), walked and removed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { until } from '../../../e2e/fixtures/until.js';
import { gitPlaceOf, makeCopy, removeCopy, startWorktree } from '../attempts/folderCopies.js';
import { definedEnv } from '../process/env.js';
import { LocalMachine } from './LocalMachine.js';
import { MachineServer } from './MachineServer.js';
import type { Machine, MachineProcess } from './Machine.js';
import { scanFolder } from './scanFolder.js';
import { containerUnavailable } from '../../../e2e/fixtures/container.js';
import { containerTestMachine, GIT_FOR_TESTS, handTo, loopbackTestMachine, sshTestMachine, tempDirOn } from './testMachines.kit.test.js';
import { sshdUnavailable } from '../../../e2e/fixtures/sshd.js';

const env = definedEnv(process.env);

/** Everything a process printed on `stream` until it ended. */
function collect(child: MachineProcess, stream: 'stdout' | 'stderr'): Promise<string> {
  const chunks: Buffer[] = [];
  child[stream].on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => child[stream].once('end', () => resolve(Buffer.concat(chunks).toString('utf8'))));
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const kinds: Array<[string, () => Promise<Machine>, string | undefined]> = [
  ['this computer (LocalMachine)', () => Promise.resolve(new LocalMachine(env)), undefined],
  ['the machine server behind the protocol (LoopbackMachine)', () => loopbackTestMachine(env), undefined],
  ['the machine server over ssh (SshMachine, a real sshd)', () => sshTestMachine(env, 'machine-sshd'), sshdUnavailable()],
  ['the machine server through podman exec -i (CommandMachine, a real container)', () => containerTestMachine(env), containerUnavailable()],
];

describe.each(kinds)('a machine: %s', (_name, make, unavailable) => {
  if (unavailable) {
    it.skip(unavailable, () => undefined);
    return;
  }
  let machine: Machine;
  beforeAll(async () => {
    machine = await make();
  }, 120_000);
  afterAll(async () => {
    await machine.dispose();
  });

  it('says who it is', () => {
    expect(machine.platform).toEqual({ os: process.platform, arch: process.arch });
    expect(path.isAbsolute(machine.home)).toBe(true);
    expect(machine.env.PATH).toBeTruthy();
  });

  it('runs a process: its input to its output, its error output kept, its exit code', async () => {
    const child = machine.spawn({
      command: process.execPath,
      args: ['-e', "console.error('warming up'); process.stdin.pipe(process.stdout); process.stdin.on('end', () => process.exit(7))"],
      env,
      cwd: tempDirOn(machine, 'machine-process'),
    });
    await child.spawned();
    expect(child.pid).toBeGreaterThan(0);
    const out = collect(child, 'stdout');
    child.stdin.write('hello, ');
    child.stdin.end('machine\n');
    expect(await out).toBe('hello, machine\n');
    expect(await child.exited).toEqual({ code: 7, signal: null });
    expect(child.exit).toEqual({ code: 7, signal: null });
    expect(child.lastErrorLines(5)).toContain('warming up');
  });

  it('says ENOENT for a program that is not there', async () => {
    // The machine's own PATH: this side's may name folders that account cannot enter (EACCES, not ENOENT).
    const child = machine.spawn({
      command: 'baton-no-such-program',
      args: [],
      env: machine.env,
      cwd: tempDirOn(machine, 'machine-enoent'),
    });
    await expect(child.spawned()).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('ends the whole group on dispose, a grandchild too', async () => {
    const child = machine.spawn({
      command: 'sh',
      args: ['-c', 'sleep 300 & echo $!; wait'],
      env,
      cwd: tempDirOn(machine, 'machine-group'),
    });
    await child.spawned();
    const grandchild = await new Promise<number>((resolve) =>
      child.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
    );
    expect(running(grandchild)).toBe(true);
    await child.dispose();
    await until(() => !running(grandchild), 5_000);
    expect(child.exit).toBeDefined();
  });

  it('runs commands to their end, and finds executables on a PATH', async () => {
    const version = await machine.exec('git', ['--version']);
    expect(version).toMatchObject({ code: 0, signal: null });
    expect(version.stdout).toMatch(/^git version /);
    const failed = await machine.exec('sh', ['-c', 'echo said >&2; exit 3'], { cwd: tempDirOn(machine, 'machine-exec') });
    expect(failed).toMatchObject({ code: 3, stderr: 'said\n', stdout: '' });
    await expect(machine.exec('baton-no-such-program', [])).rejects.toMatchObject({ code: 'ENOENT' });
    expect(path.isAbsolute((await machine.which('sh')) ?? '')).toBe(true);
    expect(await machine.which('baton-no-such-program')).toBeUndefined();
    expect(await machine.which('sh', '/nowhere')).toBeUndefined();
  });

  it('writes only inside a folder (never through a planted link), and reads, lists and resolves', async () => {
    const root = tempDir('machine-files');
    const outside = tempDir('machine-files-outside');
    writeFileSync(path.join(outside, 'secret.txt'), 'outside\n');
    symlinkSync(outside, path.join(root, 'out'));
    // The remote's account owns both: only the confinement keeps the write out, not a permission.
    handTo(machine, root, outside);
    await machine.writeConfined(root, 'notes/today.txt', Buffer.from('written\n'), 0o644);
    expect(readFileSync(path.join(root, 'notes', 'today.txt'), 'utf8')).toBe('written\n');
    await expect(machine.writeConfined(root, 'out/secret.txt', Buffer.from('pwned\n'), 0o644)).rejects.toThrow();
    await expect(machine.writeConfined(root, '../escaped.txt', Buffer.from('pwned\n'), 0o644)).rejects.toThrow();
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside\n');
    expect(existsSync(path.join(path.dirname(root), 'escaped.txt'))).toBe(false);

    expect((await machine.readFile(path.join(root, 'notes', 'today.txt'), 1024)).data.toString('utf8')).toBe('written\n');
    expect(await machine.readFile(path.join(root, 'notes', 'today.txt'), 3)).toMatchObject({ tooLarge: true });
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    handTo(machine, root);
    await expect(machine.readFile(path.join(root, 'pipe'), 1024)).rejects.toThrow();
    expect((await machine.list(root)).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'notes', kind: 'folder' },
      { name: 'out', kind: 'link' },
      { name: 'pipe', kind: 'other' },
    ]);
    expect(await machine.realpath(path.join(root, 'out'))).toBe(outside);
    await expect(machine.realpath(path.join(root, 'gone'))).rejects.toMatchObject({ code: 'ENOENT' });
    // What a path is, links followed; nothing there is ENOENT.
    await machine.writeConfined(root, 'mode.sh', Buffer.from('#!/bin/sh\n'), 0o750);
    expect(await machine.stat(path.join(root, 'mode.sh'))).toMatchObject({ kind: 'file', size: 10, mode: 0o100750 });
    expect((await machine.stat(root)).kind).toBe('folder');
    await expect(machine.stat(path.join(root, 'gone'))).rejects.toMatchObject({ code: 'ENOENT' });
    // Without a mode, a new file gets what a plain create gives there.
    await machine.writeConfined(root, 'plain.txt', Buffer.from('x'));
    expect((await machine.stat(path.join(root, 'plain.txt'))).mode & 0o777).toBe(0o666 & ~process.umask());
    // A folder renamed in place (an install swapped in), what is in it with it; a rename from nothing there is ENOENT.
    await machine.rename(path.join(root, 'notes'), path.join(root, 'kept'));
    expect(readFileSync(path.join(root, 'kept', 'today.txt'), 'utf8')).toBe('written\n');
    expect(existsSync(path.join(root, 'notes'))).toBe(false);
    await expect(machine.rename(path.join(root, 'notes'), path.join(root, 'again'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("scans a folder as a checkpoint does: a walk, then only what changed, as this computer's scan finds it", async () => {
    const folder = tempDir('machine-scan');
    mkdirSync(path.join(folder, 'src'));
    writeFileSync(path.join(folder, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(folder, 'README.md'), '# scan\n');
    writeFileSync(path.join(folder, '.gitignore'), 'build/\n');
    mkdirSync(path.join(folder, 'build'));
    writeFileSync(path.join(folder, 'build', 'out.js'), 'ignored\n');
    handTo(machine, folder);
    const options = { maxFileBytes: 1024 * 1024, maxFiles: 1000, keep: true };
    const first = await machine.scan(folder, new Map(), { walk: true }, options);
    const here = await scanFolder(folder, new Map(), { walk: true }, { ...options, isStored: () => false });
    expect(first.entries.map((entry) => [entry.path, entry.hash])).toEqual(here.entries.map((entry) => [entry.path, entry.hash]));
    expect(first.entries.map((entry) => entry.path)).toEqual(['.gitignore', 'README.md', 'src/a.ts']);
    expect(first.stored).toHaveLength(3);
    expect(first.read).toBe(3);

    writeFileSync(path.join(folder, 'src', 'a.ts'), 'export const a = 2;\n');
    const previous = new Map(first.entries.map((entry) => [entry.path, entry]));
    const second = await machine.scan(folder, previous, { paths: new Set(['src/a.ts']), tooLarge: [], failed: [] }, options);
    // Only the changed file is read; the others are kept as the last scan found them.
    expect(second.read).toBe(1);
    expect(second.entries.map((entry) => entry.path)).toEqual(['.gitignore', 'README.md', 'src/a.ts']);
    expect(second.stored.map((blob) => inflateRawSync(blob.data).toString('utf8'))).toEqual(['export const a = 2;\n']);
    // What the host's store holds already does not come back.
    const known = await machine.scan(folder, new Map(), { walk: true }, { ...options, isStored: () => true });
    expect(known.stored).toEqual([]);

    // Unswept (just after a swept checkpoint, of paths Baton wrote): only the paths named are looked
    // at; a file changed without an event is found by the next sweep.
    const latest = new Map(second.entries.map((entry) => [entry.path, entry]));
    writeFileSync(path.join(folder, 'README.md'), '# scan, again\n');
    writeFileSync(path.join(folder, 'src', 'a.ts'), 'export const a = 3;\n');
    const written = { paths: new Set(['README.md']), tooLarge: [], failed: [] };
    const unswept = await machine.scan(folder, latest, { ...written, unswept: true }, options);
    expect(unswept.read).toBe(1);
    expect(unswept.entries.find((entry) => entry.path === 'src/a.ts')).toEqual(latest.get('src/a.ts'));
    const swept = await machine.scan(folder, latest, written, options);
    expect(swept.read).toBe(2);
    expect(swept.entries.find((entry) => entry.path === 'src/a.ts')?.hash).not.toBe(latest.get('src/a.ts')?.hash);
  });

  it('watches a folder: a new file is heard', async () => {
    const folder = tempDirOn(machine, 'machine-watch');
    const heard: Array<string | null> = [];
    const watcher = machine.watchFolder(
      folder,
      (event) => heard.push(event.name),
      () => undefined,
    );
    try {
      // The server's watch starts with its answer: a write before it may go unheard, so write until heard.
      await until(() => {
        writeFileSync(path.join(folder, 'new.txt'), 'new\n');
        return heard.includes('new.txt');
      }, 5_000);
    } finally {
      watcher.close();
    }
    // A folder that is not there: refused at once (this computer) or reported (the server's answer), with ENOENT either way.
    const failed: string[] = [];
    try {
      machine.watchFolder(
        path.join(folder, 'not-there'),
        () => undefined,
        (error) => failed.push(error.code ?? ''),
      );
    } catch (error) {
      failed.push((error as NodeJS.ErrnoException).code ?? '');
    }
    await until(() => failed.length > 0, 5_000);
    expect(failed).toEqual(['ENOENT']);
  });

  it('makes a git worktree on a branch of its own and removes both', async () => {
    const work = tempDir('machine-git');
    writeFileSync(path.join(work, 'file.txt'), 'committed\n');
    const git = (...args: string[]): string => execFileSync('git', [...GIT_FOR_TESTS, ...args], { cwd: work, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'start');
    handTo(machine, work);
    const on = { machine, env };
    const place = await gitPlaceOf(work, on);
    expect(place).toMatchObject({ subdir: '' });
    const worktree = path.join(tempDirOn(machine, 'machine-git-copies'), 'copy');
    await startWorktree(place!, worktree, 'baton/machine/test', on);
    const batonBranches = (): string => git('for-each-ref', '--format=%(refname:short)', 'refs/heads/baton/').trim();
    expect(batonBranches()).toBe('baton/machine/test');
    await machine.exec('git', ['reset', '--hard', '--quiet'], { cwd: worktree });
    expect(readFileSync(path.join(worktree, 'file.txt'), 'utf8')).toBe('committed\n');
    await removeCopy({ folder: worktree, repository: place!.root, branch: 'baton/machine/test' }, on);
    expect(existsSync(worktree)).toBe(false);
    expect(batonBranches()).toBe('');
  });

  it('makes a plain copy of a checkpoint in a new owner-only folder, walks it as a checkpoint would, and removes it', async () => {
    expect(path.isAbsolute(machine.dataDir)).toBe(true);
    const source = tempDir('machine-copy-source');
    mkdirSync(path.join(source, 'src', 'deep'), { recursive: true });
    writeFileSync(path.join(source, 'src', 'deep', 'a.txt'), 'a\n');
    writeFileSync(path.join(source, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync('src/deep/a.txt', path.join(source, 'link'));
    writeFileSync(path.join(source, 'empty.txt'), '');
    // Past one request's worth of contents: the copy is sent in several, and is whole.
    const big = Buffer.alloc(5 * 1024 * 1024, 'x');
    writeFileSync(path.join(source, 'big1.bin'), big);
    writeFileSync(path.join(source, 'big2.bin'), Buffer.concat([big, Buffer.from('2')]));
    handTo(machine, source);
    const scanned = await machine.scan(source, new Map(), { walk: true }, { maxFileBytes: 16 * 1024 * 1024, maxFiles: 100, keep: true });
    const contents = new Map(scanned.stored.map((blob) => [blob.hash, inflateRawSync(blob.data)]));
    const base = new Map(scanned.entries.map((entry) => [entry.path, entry]));
    const copy = path.join(tempDirOn(machine, 'machine-copy'), 'made', 'copy');
    const made = await makeCopy(copy, base, (hash) => contents.get(hash)!, { machine, env });
    expect(made).toMatchObject({ failed: [], way: '6 files written from the checkpoint' });
    expect(made.made.map((entry) => entry.path).sort()).toEqual([...base.keys()].sort());
    expect((await machine.stat(copy)).mode & 0o777).toBe(0o700);
    expect(readFileSync(path.join(copy, 'src', 'deep', 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(path.join(copy, 'big2.bin')).length).toBe(big.length + 1);
    expect(readFileSync(path.join(copy, 'empty.txt'), 'utf8')).toBe('');
    expect((await machine.stat(path.join(copy, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect((await machine.list(copy)).find((entry) => entry.name === 'link')?.kind).toBe('link');
    expect((await machine.walk(copy)).sort()).toEqual(['big1.bin', 'big2.bin', 'empty.txt', 'link', 'run.sh', 'src/deep/a.txt']);
    // A name taken by a link is not written through: that file fails, the link's target is as it was.
    const outside = path.join(tempDir('machine-copy-outside'), 'target.txt');
    writeFileSync(outside, 'outside\n');
    const again = path.join(path.dirname(copy), 'again');
    mkdirSync(again);
    symlinkSync(outside, path.join(again, 'empty.txt'));
    handTo(machine, path.dirname(outside), again);
    const refused = await machine.populate(again, [base.get('empty.txt')!], (hash) => contents.get(hash)!);
    expect(refused).toEqual({ failed: [{ path: 'empty.txt', reason: 'EEXIST' }], made: [] });
    expect(readFileSync(outside, 'utf8')).toBe('outside\n');
    await machine.remove(path.dirname(copy));
    await expect(machine.stat(copy)).rejects.toMatchObject({ code: 'ENOENT' });
    // Nothing there is no error.
    await machine.remove(path.dirname(copy));
  });
});

describe('the loopback machine', () => {
  it('ends every process it ran when it is disposed, and fails what is asked after with why', async () => {
    const machine = await loopbackTestMachine(env);
    const child = machine.spawn({ command: 'sleep', args: ['300'], env, cwd: tempDir('loopback-end') });
    await child.spawned();
    const pid = child.pid!;
    expect(running(pid)).toBe(true);
    await machine.dispose();
    await until(() => !running(pid), 10_000);
    expect(child.exit).toBeDefined();
    await expect(machine.exec('true', [])).rejects.toThrow('the connection to Loopback was closed');
  });

  it.skipIf(sshdUnavailable() !== undefined)(
    'over ssh too: the durable server there ends what it ran when Baton is done with the machine, and itself',
    async () => {
      const machine = await sshTestMachine(env, 'machine-ssh-end');
      try {
        const child = machine.spawn({ command: 'sleep', args: ['300'], env, cwd: tempDirOn(machine, 'ssh-end') });
        await child.spawned();
        const server = machine.serverPid;
        expect(running(child.pid!)).toBe(true);
        await machine.dispose();
        await until(() => !running(child.pid!) && !running(server), 10_000);
        expect(machine.state.state).toBe('closed');
      } finally {
        // A failure above still ends the machine and its sshd (disposing twice does nothing).
        await machine.dispose();
      }
    },
    60_000,
  );
});

describe('the machine server', () => {
  it('answers what it cannot do with why, drops what it cannot read, and keeps serving', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const server = MachineServer.overStreams(new LocalMachine(env), input, output);
    const answers: unknown[] = [];
    createInterface({ input: output }).on('line', (line) => answers.push(JSON.parse(line)));
    input.write('not json at all\n');
    input.write('{"neither": "a request nor a note"}\n');
    input.write('{"id": 1, "method": "format the disk", "params": {}}\n');
    input.write('{"id": 2, "method": "which", "params": {"command": 5}}\n');
    input.write('{"id": 3, "method": "watch", "params": {"watch": 1, "folder": "/nowhere/at/all"}}\n');
    input.write('{"id": 4, "method": "which", "params": {"command": "sh"}}\n');
    await until(() => answers.length === 4, 5_000);
    expect(answers[0]).toEqual({ id: 1, error: { message: 'The machine server knows no method "format the disk".' } });
    expect(answers[1]).toMatchObject({ id: 2, error: { message: expect.stringContaining('Bad parameters for which') } });
    expect(answers[2]).toMatchObject({ id: 3, error: { code: 'ENOENT' } });
    expect(answers[3]).toMatchObject({ id: 4, result: { path: expect.stringMatching(/\/sh$/) } });
    input.end();
    await server.closed;
  });
});
