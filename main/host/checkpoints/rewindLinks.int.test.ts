/**
 * A rewind never writes outside the working folder, whatever the agent planted there: the trust
 * review's link rewind (turn 1 writes d/zzz/authorized_keys; turn 2 replaces d/zzz with a link to
 * a folder outside and makes d read-only, so removing the link fails), run as an ordinary user
 * (root would remove the link and hide the failure); the same with the link hidden from the
 * checkpoint by an ignore rule (root meets that one too); and the confined writes themselves.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { FAKE_AGENT_ID, fakeAgentScript, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { ordinaryUser, removeUserFolder, runAsUser, userFolder, type OrdinaryUser } from '../../../e2e/fixtures/ordinaryUser.js';
import { ConfinedTree } from '../machine/ConfinedTree.js';
import { Host, definedEnv } from '../Host.js';
import { restoreFolder as restoreFiles } from '../machine/restoreFolder.js';

type Rewound = { failed: Array<{ path: string; reason: string }>; changed: Array<{ path: string }>; outside: string[] };

describe('a rewind and a link the agent planted', () => {
  const user = ordinaryUser();
  const made: string[] = [];
  afterAll(() => made.splice(0).forEach(removeUserFolder));

  it.skipIf('reason' in user)(
    `writes nothing through a link whose removal failed (run as an ordinary user)${'reason' in user ? `; skipped: ${user.reason}` : ''}`,
    () => {
      ensureBuilt();
      const as = user as OrdinaryUser;
      const scenario = userFolder(as, 'link-rewind');
      made.push(scenario);
      const rewound = runAsUser<Rewound>(as, 'rewindThroughLink.mjs', [scenario, fakeAgentScript], {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
      });
      // Nothing reached the folder outside ("~/.ssh").
      expect(rewound.outside).toEqual([]);
      // The link could not be removed (its folder is read-only), so nothing was written beneath it.
      const reasons = Object.fromEntries(rewound.failed.map((entry) => [entry.path, entry.reason]));
      expect(reasons['d/zzz']).toBe('permission denied');
      expect(reasons['d/zzz/authorized_keys']).toMatch(/not written: d\/zzz could not be removed|is a link/);
    },
    120_000,
  );

  describe('in a host', () => {
    let host: Host;
    let work: string;
    let outside: string;

    beforeEach(() => {
      const dataDir = tempDir('link-rewind');
      registerFakeAgent(dataDir);
      host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
      work = tempDir('link-work');
      outside = tempDir('link-outside');
    });
    afterEach(async () => {
      await host.dispose();
    });

    it('writes nothing through a link an ignore rule hid from the checkpoint', async () => {
      const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
      const send = async (text: string): Promise<string> => {
        const { turnId } = await host.turns.send(conversationId, text);
        await host.turns.idle();
        await host.turnCheckpoints.idle();
        return turnId;
      };
      await send(`TURN-ONE write:${path.join(work, 'd', 'zzz', 'authorized_keys')}`);
      const second = await send(`TURN-TWO sh[printf 'zzz\\n' > d/.gitignore && rm -rf d/zzz && ln -s ${outside} d/zzz]`);
      expect(readdirSync(path.join(work, 'd')).sort()).toEqual(['.gitignore', 'zzz']);

      const preview = await host.rewinds.preview(conversationId, second);
      expect(preview.files.map((file) => [file.path, file.action])).toEqual([
        ['d/.gitignore', 'removed'],
        ['d/zzz/authorized_keys', 'recreated'],
      ]);
      const rewound = await host.rewinds.rewind(conversationId, second, { keepFiles: false, overwrite: [] });
      expect(readdirSync(outside)).toEqual([]);
      expect(rewound.failed).toEqual([{ path: 'd/zzz/authorized_keys', reason: 'd/zzz is a link; Baton does not write through it' }]);
      expect(rewound.changed).toEqual([{ path: 'd/.gitignore', action: 'removed' }]);
    });
  });
});

describe('confined writes', () => {
  it('refuse a link anywhere above the file, and write and remove nothing through it', async () => {
    const root = tempDir('confined');
    const outside = tempDir('confined-outside');
    writeFileSync(path.join(outside, 'keep.txt'), 'outside\n');
    mkdirSync(path.join(root, 'a'));
    symlinkSync(outside, path.join(root, 'a', 'b'));
    const tree = await ConfinedTree.open(root);
    await expect(tree.writeFile('a/b/new.txt', 'x', 0o644)).rejects.toThrow('a/b is a link; Baton does not write through it');
    await expect(tree.writeFile('a/b/c/new.txt', 'x', 0o644)).rejects.toThrow('a/b is a link');
    await expect(tree.remove('a/b/keep.txt')).rejects.toThrow('a/b is a link');
    await expect(tree.writeLink('a/b/l', '/etc/passwd')).rejects.toThrow('a/b is a link');
    expect(readdirSync(outside)).toEqual(['keep.txt']);
    // The link itself is a file of the folder: it can be replaced or removed.
    await tree.remove('a/b');
    expect(existsSync(path.join(root, 'a', 'b'))).toBe(false);
    await tree.writeFile('a/b/new.txt', 'inside', 0o600);
    expect(readFileSync(path.join(root, 'a', 'b', 'new.txt'), 'utf8')).toBe('inside');
    expect(readdirSync(outside)).toEqual(['keep.txt']);
  });

  it('write a file that is there in place, but never one with a second name (a hard link) or a link', async () => {
    const root = tempDir('confined-in-place');
    const outside = tempDir('confined-in-place-outside');
    writeFileSync(path.join(root, 'plain.txt'), 'a longer first version\n');
    const inode = statSync(path.join(root, 'plain.txt')).ino;
    writeFileSync(path.join(outside, 'secret.txt'), 'outside\n');
    linkSync(path.join(outside, 'secret.txt'), path.join(root, 'hard.txt'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'soft.txt'));
    const tree = await ConfinedTree.open(root);
    await tree.writeFile('plain.txt', 'short\n', 0o600);
    // Written over in place (the same file, cut to its new length, with the mode asked for).
    expect(readFileSync(path.join(root, 'plain.txt'), 'utf8')).toBe('short\n');
    expect(statSync(path.join(root, 'plain.txt'))).toMatchObject({ ino: inode, size: 6 });
    expect(statSync(path.join(root, 'plain.txt')).mode & 0o777).toBe(0o600);
    // A hard link and a link are replaced by a file of the folder; what they led to is untouched.
    await tree.writeFile('hard.txt', 'inside\n', 0o644);
    await tree.writeFile('soft.txt', 'inside\n', 0o644);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside\n');
    expect(readFileSync(path.join(root, 'hard.txt'), 'utf8')).toBe('inside\n');
    expect(lstatSync(path.join(root, 'soft.txt')).isSymbolicLink()).toBe(false);
    expect(statSync(path.join(outside, 'secret.txt')).nlink).toBe(1);
  });

  it('never open a FIFO they write over: a reader waiting on it is not woken', async () => {
    const root = tempDir('confined-fifo');
    const marker = path.join(tempDir('confined-fifo-marker'), 'woken');
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    // A reader blocks in open() until some writer opens the FIFO.
    const reader = spawn('sh', ['-c', `cat pipe > /dev/null; echo woken > ${marker}`], { cwd: root, stdio: 'ignore', detached: true });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const tree = await ConfinedTree.open(root);
      await tree.writeFile('pipe', 'a file now\n', 0o644);
      expect(readFileSync(path.join(root, 'pipe'), 'utf8')).toBe('a file now\n');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(existsSync(marker)).toBe(false);
    } finally {
      // The whole group: its cat still waits on the FIFO's old inode.
      process.kill(-reader.pid!, 'SIGKILL');
    }
  });

  it('refuse paths that leave the folder, and a folder that is not the one recorded', async () => {
    const root = tempDir('confined-paths');
    const tree = await ConfinedTree.open(root);
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a//b', './x', '']) {
      await expect(tree.writeFile(bad, 'x', 0o644)).rejects.toThrow('is not a path inside');
    }
    const other = tempDir('confined-other');
    const link = path.join(tempDir('confined-links'), 'work');
    symlinkSync(other, link);
    await expect(ConfinedTree.open(link)).rejects.toThrow('is a link');
    await expect(ConfinedTree.open(other, root)).rejects.toThrow(`is now ${other}, not the folder ${root} that was recorded`);
    const failed = await restoreFiles(
      other,
      [{ path: 'f.txt', entry: { path: 'f.txt', hash: 'h', size: 1, mode: 0o644, mtimeMs: 0, ino: 0 } }],
      () => Buffer.from('x'),
      root,
    );
    expect(failed).toEqual([{ path: 'f.txt', reason: `${other} is now ${other}, not the folder ${root} that was recorded` }]);
    expect(readdirSync(other)).toEqual([]);
  });

  it('skip every write beneath a path whose removal failed', async () => {
    const root = tempDir('confined-blocked');
    mkdirSync(path.join(root, 'd'));
    // A folder cannot be unlinked: its removal fails, as a read-only parent makes it fail for an ordinary user.
    mkdirSync(path.join(root, 'd', 'zzz'));
    const failed = await restoreFiles(
      root,
      [
        { path: 'd/zzz', entry: undefined },
        { path: 'd/zzz/authorized_keys', entry: { path: 'd/zzz/authorized_keys', hash: 'h', size: 3, mode: 0o600, mtimeMs: 0, ino: 0 } },
      ],
      () => Buffer.from('key'),
    );
    expect(failed.map((entry) => entry.path)).toEqual(['d/zzz', 'd/zzz/authorized_keys']);
    expect(failed[1]?.reason).toBe('not written: d/zzz could not be removed');
    expect(readdirSync(path.join(root, 'd', 'zzz'))).toEqual([]);
  });
});
