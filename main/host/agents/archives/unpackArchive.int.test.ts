/**
 * Unpacking agents' archives into real folders: a .tar.gz and a .zip unpack with their programs
 * runnable and their links kept; an entry that would leave the folder (`../`, an absolute path, a
 * link out) gets the whole archive refused, with nothing written; formats Baton does not unpack
 * are said plainly.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTarGz, makeZip, type ArchiveEntry } from '../../../../e2e/fixtures/archives.js';
import { tempDir } from '../../../../e2e/fixtures/agentEnv.js';
import { unpackArchive } from './unpackArchive.js';

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
