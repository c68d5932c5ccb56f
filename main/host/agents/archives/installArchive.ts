/**
 * An agent from an archive (a registry `binary` distribution), built in a staging folder: the
 * archive is downloaded, checked against the registry's sha256 (when it gives none, only once
 * the person agreed), unpacked (every entry inside the folder), and its executable found and
 * made runnable. The caller swaps the staging folder in once the agent answers `initialize`.
 */
import { chmodSync, existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { downloadArchive } from './downloadArchive.js';
import { isInside } from '../../files/isInside.js';
import { leavesFolder, unpackArchive } from './unpackArchive.js';

/** What an archive install made: the executable, relative to the staging folder. */
export type ArchiveInstalled = { executable: string; sha256: string };

/** Why an archive install failed, in a sentence about the archive. */
export class ArchiveInstallError extends Error {}

/** Downloads, checks and unpacks `archive` into `staging`. */
export async function installArchive(
  archive: { url: string; sha256?: string; cmd: string },
  staging: string,
  options: { signal?: AbortSignal; say: (text: string) => void },
): Promise<ArchiveInstalled> {
  const download = path.join(staging, '.download');
  options.say(`Downloading ${archive.url}`);
  const got = await downloadArchive(archive.url, download, { ...(options.signal ? { signal: options.signal } : {}), say: options.say });
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
    const relative = archive.cmd.replace(/\\/g, '/').replace(/^\.\//, '');
    const outside = leavesFolder(relative);
    if (outside !== undefined) {
      throw new ArchiveInstallError(`the registry's program to run, ${archive.cmd}, is ${outside}: it must be a file inside the archive`);
    }
    await unpackArchive(download, archive.url, path.join(staging, 'agent'), relative);
    const executable = path.join('agent', ...relative.split('/'));
    const absolute = path.join(staging, executable);
    if (!existsSync(absolute) || !statSync(absolute).isFile()) {
      throw new ArchiveInstallError(`the archive has no ${archive.cmd}, the program the registry says to run`);
    }
    // Made runnable only where it really is inside the agent's folder (never a file a link leads out to).
    if (!isInside(realpathSync(path.join(staging, 'agent')), realpathSync(absolute))) {
      throw new ArchiveInstallError(`the registry's program to run, ${archive.cmd}, leads outside the agent's folder`);
    }
    chmodSync(absolute, statSync(absolute).mode | 0o755);
    return { executable, sha256: got.sha256 };
  } finally {
    rmSync(download, { force: true });
  }
}
