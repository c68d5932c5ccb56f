/**
 * Unpacking an agent's archive into a folder of its own, refusing the whole archive when any
 * entry would leave that folder: a path with `..`, an absolute path (or a drive), or a link (or
 * hard link) whose target lies outside. Every entry is checked before anything is written. Formats:
 * `.tar.gz` / `.tgz` (the `tar` package), `.zip` (`yauzl`), and a bare executable (an "archive"
 * that is the program itself, as some registry entries publish).
 */
import { chmodSync, copyFileSync, createWriteStream, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import yauzl from 'yauzl';

/** Why an archive was refused or could not be unpacked. */
export class UnpackError extends Error {}

/** The kind of archive an address names, by its ending. */
export function archiveKind(url: string): 'tar.gz' | 'zip' | 'other-archive' | 'executable' {
  const name = new URL(url).pathname.toLowerCase();
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) {
    return 'tar.gz';
  }
  if (name.endsWith('.zip')) {
    return 'zip';
  }
  if (/\.(tar\.bz2|tbz2?|tar\.xz|txz|tar\.zst|7z|rar|dmg|pkg|deb|rpm|msi|appimage)$/.test(name)) {
    return 'other-archive';
  }
  return 'executable';
}

/** Why an entry's path would leave the folder, if it would. */
export function leavesFolder(entryPath: string): string | undefined {
  const normal = entryPath.replace(/\\/g, '/');
  if (normal.startsWith('/') || /^[a-zA-Z]:/.test(normal)) {
    return 'an absolute path';
  }
  if (normal.split('/').includes('..')) {
    return 'a path with ".."';
  }
  return undefined;
}

/** Why a link entry would point outside the folder, if it would (its target taken from where the link is). */
export function linkLeavesFolder(entryPath: string, target: string): string | undefined {
  const normalTarget = target.replace(/\\/g, '/');
  if (normalTarget.startsWith('/') || /^[a-zA-Z]:/.test(normalTarget)) {
    return `a link to an absolute path (${target})`;
  }
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(entryPath.replace(/\\/g, '/')), normalTarget));
  if (resolved === '..' || resolved.startsWith('../')) {
    return `a link that points outside the agent's folder (${target})`;
  }
  return undefined;
}

/** Unpacks `file` (downloaded from `url`) into `folder`; for a bare executable, puts it there as `name`. */
export async function unpackArchive(file: string, url: string, folder: string, name: string): Promise<void> {
  mkdirSync(folder, { recursive: true });
  const kind = archiveKind(url);
  switch (kind) {
    case 'tar.gz':
      return unpackTar(file, folder);
    case 'zip':
      return unpackZip(file, folder);
    case 'other-archive':
      throw new UnpackError(
        `Baton cannot unpack this kind of archive (${path.basename(new URL(url).pathname)}): it unpacks .tar.gz and .zip archives`,
      );
    case 'executable': {
      const target = path.join(folder, path.basename(name));
      copyFileSync(file, target);
      chmodSync(target, 0o755);
      return;
    }
  }
}

async function unpackTar(file: string, folder: string): Promise<void> {
  const refusals: string[] = [];
  try {
    await tar.t({
      file,
      onReadEntry: (entry) => {
        const why =
          leavesFolder(entry.path) ??
          ((entry.type === 'SymbolicLink' || entry.type === 'Link') && entry.linkpath
            ? linkLeavesFolder(entry.path, entry.linkpath)
            : undefined);
        if (why) {
          refusals.push(`${entry.path}: ${why}`);
        }
      },
    });
  } catch (error) {
    throw new UnpackError(`the archive cannot be read (${(error as Error).message})`);
  }
  refuseIfAny(refusals);
  try {
    // strict: any problem tar meets is an error; never an absolute path or "..", never through a link.
    await tar.x({ file, cwd: folder, strict: true, preservePaths: false, preserveOwner: false });
  } catch (error) {
    throw new UnpackError(`the archive cannot be unpacked (${(error as Error).message})`);
  }
}

/** A zip entry's Unix mode, if the archive recorded one. */
function zipMode(entry: yauzl.Entry): number {
  return (entry.externalFileAttributes >>> 16) & 0xffff;
}

async function unpackZip(file: string, folder: string): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, opened) =>
      error ? reject(new UnpackError(`the archive cannot be read (${error.message})`)) : resolve(opened),
    ),
  );
  try {
    const entries: yauzl.Entry[] = [];
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        entries.push(entry);
        zip.readEntry();
      });
      zip.on('end', resolve);
      // yauzl refuses an entry that leaves the folder itself: said as every other refusal is.
      zip.on('error', (error: Error) =>
        reject(
          /relative path|absolute path/i.test(error.message)
            ? refusal([error.message])
            : new UnpackError(`the archive cannot be read (${error.message})`),
        ),
      );
      zip.readEntry();
    });
    const refusals = entries.flatMap((entry) => {
      const why = leavesFolder(entry.fileName);
      return why ? [`${entry.fileName}: ${why}`] : [];
    });
    const links = new Map<yauzl.Entry, string>();
    for (const entry of entries.filter((candidate) => (zipMode(candidate) & 0o170000) === 0o120000)) {
      const target = (await readZipEntry(zip, entry)).toString('utf8');
      const why = linkLeavesFolder(entry.fileName, target);
      if (why) {
        refusals.push(`${entry.fileName}: ${why}`);
      }
      links.set(entry, target);
    }
    refuseIfAny(refusals);
    for (const entry of entries) {
      const target = path.join(folder, ...entry.fileName.replace(/\\/g, '/').split('/'));
      if (entry.fileName.endsWith('/')) {
        mkdirSync(target, { recursive: true });
        continue;
      }
      mkdirSync(path.dirname(target), { recursive: true });
      const link = links.get(entry);
      if (link !== undefined) {
        symlinkSync(link, target);
        continue;
      }
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
        zip.openReadStream(entry, (error, opened) => (error ? reject(error) : resolve(opened))),
      );
      const mode = zipMode(entry) & 0o777;
      await pipeline(stream, createWriteStream(target, { mode: mode === 0 ? 0o644 : mode }));
    }
  } finally {
    zip.close();
  }
}

function readZipEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => {
      if (error) {
        reject(error);
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
      stream.on('error', reject);
    }),
  );
}

function refusal(refusals: readonly string[]): UnpackError {
  return new UnpackError(
    `the archive has entries that would land outside the agent's folder, so Baton refused all of it: ${refusals.slice(0, 5).join('; ')}${refusals.length > 5 ? ` and ${refusals.length - 5} more` : ''}`,
  );
}

function refuseIfAny(refusals: readonly string[]): void {
  if (refusals.length > 0) {
    throw refusal(refusals);
  }
}
