/**
 * Unpacking agents' archives into real folders: a .tar.gz and a .zip unpack with their programs
 * runnable and their links kept; an entry that would leave the folder (`../`, an absolute path, a
 * link out, a chain of links that reads as inside but lands outside) gets the whole archive
 * refused, with nothing written; a registry `cmd` with `..` is refused before any mode changes;
 * formats Baton does not unpack are said plainly.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeTarGz, makeZip, type ArchiveEntry } from '../../../../e2e/fixtures/archives.js';
import { tempDir } from '../../../../e2e/fixtures/agentEnv.js';
import { LocalMachine } from '../../machine/LocalMachine.js';
import type { Machine } from '../../machine/Machine.js';
import { describeOnMachines, machinesSharingFiles, tempDirOn } from '../../machine/testMachines.kit.test.js';
import { unpackArchive } from '../../machine/unpackArchive.js';
import { definedEnv } from '../../process/env.js';
import { installArchive } from './installArchive.js';

const env = definedEnv(process.env);

const good: ArchiveEntry[] = [
  { name: 'bin/' },
  { name: 'bin/agent', mode: 0o755, data: '#!/bin/sh\necho agent\n' },
  { name: 'lib/data.txt', data: 'data' },
  { name: 'bin/alias', link: 'agent' },
];

/** Writes an archive to a file named like its kind and unpacks it into a fresh folder. */
function unpack(kind: 'tar.gz' | 'zip', entries: readonly ArchiveEntry[]): { folder: string; outside: string; result: Promise<void> } {
  const root = tempDir('unpack');
  const file = path.join(root, `agent.${kind}`);
  writeFileSync(file, kind === 'zip' ? makeZip(entries) : makeTarGz(entries));
  const folder = path.join(root, 'agent');
  return { folder, outside: root, result: unpackArchive(file, `https://example.test/agent.${kind}`, folder, 'bin/agent') };
}

describe('unpacking an agent archive', () => {
  for (const kind of ['tar.gz', 'zip'] as const) {
    it(`unpacks a .${kind} with its program runnable and its links kept`, async () => {
      const { folder, result } = unpack(kind, good);
      await result;
      expect(readFileSync(path.join(folder, 'bin', 'agent'), 'utf8')).toContain('echo agent');
      expect(statSync(path.join(folder, 'bin', 'agent')).mode & 0o111).not.toBe(0);
      expect(readFileSync(path.join(folder, 'lib', 'data.txt'), 'utf8')).toBe('data');
      expect(lstatSync(path.join(folder, 'bin', 'alias')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(path.join(folder, 'bin', 'alias'))).toBe('agent');
    });

    for (const [what, entry] of [
      ['a "../" path', { name: '../escaped.txt', data: 'out' }],
      ['an absolute path', { name: '/tmp/baton-escaped.txt', data: 'out' }],
      ['a link out of the folder', { name: 'bin/evil', link: '../../../etc' }],
      ['a link to an absolute path', { name: 'bin/evil', link: '/etc/passwd' }],
    ] as const) {
      it(`refuses a .${kind} with ${what}, writing nothing`, async () => {
        const { folder, outside, result } = unpack(kind, [...good, entry]);
        await expect(result).rejects.toThrow(/would land outside the agent's folder, so Baton refused all of it/);
        expect(existsSync(path.join(folder, 'bin', 'agent'))).toBe(false);
        expect(readdirSync(outside).sort()).toEqual(['agent', `agent.${kind}`].sort());
        expect(existsSync('/tmp/baton-escaped.txt')).toBe(false);
      });
    }
  }

  it('says plainly which archives it does not unpack', async () => {
    const root = tempDir('unpack-other');
    writeFileSync(path.join(root, 'agent.tar.bz2'), 'BZh9');
    await expect(
      unpackArchive(path.join(root, 'agent.tar.bz2'), 'https://example.test/goose.tar.bz2', path.join(root, 'agent'), 'goose'),
    ).rejects.toThrow('Baton cannot unpack this kind of archive (goose.tar.bz2): it unpacks .tar.gz and .zip archives');
  });
});

/**
 * Issue 45's zip and `cmd` findings, run where the agent is installed: this computer, the machine
 * server behind the protocol, and that server over a real ssh as an ordinary account (where root
 * would not hide a write outside). The archive is downloaded here and sent to the machine, which
 * unpacks it.
 */
describeOnMachines(machinesSharingFiles(env), 'installing an agent archive', (machineOf) => {
  const onMachine = (): Machine => machineOf() ?? new LocalMachine(env);

  /** A zip of `entries` on this computer, with its address and checksum. */
  function zipOf(entries: readonly ArchiveEntry[]): { url: string; sha256: string } {
    const file = path.join(tempDir('unpack-zip'), 'agent.zip');
    const zip = makeZip(entries);
    writeFileSync(file, zip);
    return { url: pathToFileURL(file).href, sha256: createHash('sha256').update(zip).digest('hex') };
  }

  it('installs a good archive with its program runnable', async () => {
    const machine = onMachine();
    const staging = tempDirOn(machine, 'unpack-good');
    const installed = await installArchive({ ...zipOf(good), cmd: './bin/agent' }, staging, { machine, say: () => {} });
    expect(installed.executable).toBe(path.join('agent', 'bin', 'agent'));
    expect((await machine.stat(path.join(staging, installed.executable))).mode & 0o111).not.toBe(0);
    // The download is gone; only the agent's folder is left.
    expect((await machine.list(staging)).map((entry) => entry.name)).toEqual(['agent']);
  });

  it('refuses a .zip whose chained links read as inside but land outside, naming the entry and writing nothing out', async () => {
    const victim = `baton-zip-escape-${process.pid}-${Date.now()}`;
    const deep = Array.from({ length: 12 }, (_, index) => `a${index}`).join('/');
    const chain: ArchiveEntry[] = [
      // As text it points at the folder itself…
      { name: `${deep}/w`, link: '../'.repeat(12) },
      // …and this one, as text, stays inside; on disk it goes through w first and lands 12 folders up.
      { name: 'root', link: `${deep}/w/${'../'.repeat(12)}` },
      { name: `root/tmp/${victim}`, data: 'pwned' },
    ];
    const machine = onMachine();
    const staging = tempDirOn(machine, 'unpack-chain');
    const installing = installArchive({ ...zipOf([...good, ...chain]), cmd: 'bin/agent' }, staging, { machine, say: () => {} });
    // Where the finding wrote: removed even when the test fails, so a run leaves nothing behind.
    onTestFinished(() => rmSync(path.join('/tmp', victim), { force: true }));
    await expect(installing).rejects.toThrow(`root/tmp/${victim}: it would be written through root, a link of the same archive`);
    await expect(installing).rejects.toThrow(`root: a link whose target goes through ${deep}/w, another link of the same archive`);
    await expect(machine.stat(path.join('/tmp', victim))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(machine.stat(path.join(staging, 'agent', 'bin', 'agent'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("refuses a registry cmd with '..' and changes no file's mode outside the agent's folder", async () => {
    const machine = onMachine();
    const root = tempDirOn(machine, 'unpack-cmd');
    const victim = path.join(root, 'victim.txt');
    await machine.writeConfined(root, 'victim.txt', Buffer.from('secret'), 0o600);
    const staging = path.join(root, 'staging');
    await machine.mkdir(staging);
    const cmd = path.relative(path.join(staging, 'agent'), victim);
    expect(cmd.startsWith('../')).toBe(true);
    await expect(installArchive({ ...zipOf(good), cmd }, staging, { machine, say: () => {} })).rejects.toThrow(
      `the registry's program to run, ${cmd}, is a path with ".."`,
    );
    expect((await machine.stat(victim)).mode & 0o777).toBe(0o600);
    // Refused before anything was downloaded or unpacked.
    expect(await machine.list(staging)).toEqual([]);
  });
});
