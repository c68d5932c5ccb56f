/**
 * An agent from an archive (a registry `binary` distribution), built in a staging folder: the
 * archive is downloaded, checked against the registry's sha256 (when it gives none, only once
 * the person agreed), unpacked (every entry inside the folder), and its executable found and
 * made runnable. The caller swaps the staging folder in once the agent answers `initialize`.
 */
import path from 'node:path';
import { pathsOf, type Machine } from '../../machine/Machine.js';
import { programPath } from '../../machine/unpackArchive.js';
import { downloadTo } from '../../machine/downloadArchive.js';

/** What an archive install made: the executable, relative to the staging folder. */
export type ArchiveInstalled = { executable: string; sha256: string };

/** Why an archive install failed, in a sentence about the archive. */
export class ArchiveInstallError extends Error {}

/** Downloads, checks and unpacks `archive` into `staging`, a folder on `machine`. */
export async function installArchive(
  archive: { url: string; sha256?: string; cmd: string },
  staging: string,
  options: { machine: Machine; signal?: AbortSignal; say: (text: string) => void },
): Promise<ArchiveInstalled> {
  const { machine } = options;
  // Refused before anything is downloaded or written.
  programPath(archive.cmd);
  options.say(`Downloading ${archive.url}`);
  const got = await downloadTo(machine, archive.url, staging, '.download', {
    ...(options.signal ? { signal: options.signal } : {}),
    say: options.say,
  });
  try {
    if (archive.sha256 !== undefined && got.sha256 !== archive.sha256.toLowerCase()) {
      throw new ArchiveInstallError(
        `the archive's checksum is ${got.sha256}, but the registry lists ${archive.sha256.toLowerCase()}: it is not what the registry published, so nothing was installed`,
      );
    }
    options.say(
      archive.sha256 !== undefined
        ? `The checksum matches the registry's (sha256 ${got.sha256.slice(0, 12)}…). Unpacking…`
        : `Unpacking (no checksum to check it against)…`,
    );
    // Unpacked, checked and made runnable on the machine itself, where the files are.
    const program = await machine.unpackAgent(got.file, archive.url, pathsOf(machine).join(staging, 'agent'), archive.cmd);
    return { executable: path.join('agent', ...program.split('/')), sha256: got.sha256 };
  } finally {
    await machine.remove(got.file);
  }
}
