/**
 * Unpacking an agent's archive into a folder of its own, on the machine the agent is installed on
 * (the checks run where the inodes are, as every confined write does), refusing the whole archive when any
 * entry would leave that folder: a path with `..`, an absolute path (or a drive), or a link (or
 * hard link) whose target lies outside. Every entry is checked before anything is written. A
 * zip's links are made after all its files (each created, never opened through a link, under
 * folders checked to be folders), and an entry below a link of the same archive, or a link whose
 * target goes through another, is refused: a chain of links that reads as inside can land outside. Formats:
 * `.tar.gz` / `.tgz` (the `tar` package), `.zip` (`yauzl`), and a bare executable (an "archive"
 * that is the program itself, as some registry entries publish).
 */
import {
  chmodSync,
  constants,
  copyFileSync,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { isInside } from '../files/isInside.js';
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

/** The registry's program to run, `cmd`, as a path relative to the agent's folder with `/`; refused when it leaves the folder. */
export function programPath(cmd: string): string {
  const relative = cmd.replace(/\\/g, '/').replace(/^\.\//, '');
  const outside = leavesFolder(relative);
  if (outside !== undefined) {
    throw new UnpackError(`the registry's program to run, ${cmd}, is ${outside}: it must be a file inside the archive`);
  }
  return relative;
}

/**
 * An agent's archive unpacked into `folder` and its program, `cmd`, made runnable: refused when
 * `cmd` leaves the folder (before anything is unpacked), is missing, or really lies outside it
 * through a link (never a mode changed outside). Returns the program's path relative to `folder`.
 */
export async function unpackAgent(file: string, url: string, folder: string, cmd: string): Promise<string> {
  const relative = programPath(cmd);
  await unpackArchive(file, url, folder, relative);
  const program = path.join(folder, ...relative.split('/'));
  if (!existsSync(program) || !statSync(program).isFile()) {
    throw new UnpackError(`the archive has no ${cmd}, the program the registry says to run`);
  }
  // Made runnable only where it really is inside the agent's folder (never a file a link leads out to).
  if (!isInside(realpathSync(folder), realpathSync(program))) {
    throw new UnpackError(`the registry's program to run, ${cmd}, leads outside the agent's folder`);
  }
  chmodSync(program, statSync(program).mode | 0o755);
  return relative;
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
    // A link's text says where it points only if nothing it passes through is a link too: an entry
    // below a link of the archive, or a link whose target goes through one, is refused.
    const linkPaths = new Set([...links.keys()].map((entry) => entryPath(entry.fileName)));
    for (const entry of entries) {
      const through = ancestors(entryPath(entry.fileName)).find((above) => linkPaths.has(above));
      if (through !== undefined) {
        refusals.push(`${entry.fileName}: it would be written through ${through}, a link of the same archive`);
      }
    }
    for (const [entry, target] of links) {
      const through = passesThrough(entryPath(entry.fileName), target, linkPaths);
      if (through !== undefined) {
        refusals.push(`${entry.fileName}: a link whose target goes through ${through}, another link of the same archive`);
      }
    }
    refuseIfAny(refusals);
    // Folders and files first, links last: nothing is ever written while a link of the archive exists.
    for (const entry of entries) {
      if (links.has(entry)) {
        continue;
      }
      const relative = entryPath(entry.fileName);
      if (entry.fileName.endsWith('/')) {
        makeFolders(folder, relative, entry.fileName);
        continue;
      }
      makeFolders(folder, path.posix.dirname(relative), entry.fileName);
      const target = path.join(folder, ...relative.split('/'));
      const mode = zipMode(entry) & 0o777;
      let descriptor: number;
      try {
        // Created, never opened if something is there: never written through a link.
        descriptor = openSync(
          target,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          mode === 0 ? 0o644 : mode,
        );
      } catch (error) {
        throw new UnpackError(
          `the archive's entry ${entry.fileName} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        );
      }
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
        zip.openReadStream(entry, (error, opened) => (error ? reject(error) : resolve(opened))),
      );
      await pipeline(stream, createWriteStream('', { fd: descriptor }));
    }
    for (const [entry, link] of links) {
      const relative = entryPath(entry.fileName);
      makeFolders(folder, path.posix.dirname(relative), entry.fileName);
      try {
        symlinkSync(link, path.join(folder, ...relative.split('/')));
      } catch (error) {
        throw new UnpackError(
          `the archive's link ${entry.fileName} cannot be made (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        );
      }
    }
  } finally {
    zip.close();
  }
}

/** An entry's path with `/`, without a trailing one or `./` parts. */
function entryPath(name: string): string {
  return name
    .replace(/\\/g, '/')
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/** The folders above a path, outermost first (`a/b/c` → `a`, `a/b`). */
function ancestors(relative: string): string[] {
  const parts = relative.split('/');
  return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join('/'));
}

/** The first link of `links` that following `target` from the link at `linkPath` goes through (not counting its last part). */
function passesThrough(linkPath: string, target: string, links: ReadonlySet<string>): string | undefined {
  const at = linkPath.split('/').slice(0, -1);
  const parts = target
    .replace(/\\/g, '/')
    .split('/')
    .filter((part) => part !== '' && part !== '.');
  for (const [index, part] of parts.entries()) {
    if (part === '..') {
      at.pop();
    } else {
      at.push(part);
    }
    if (index < parts.length - 1 && links.has(at.join('/'))) {
      return at.join('/');
    }
  }
  return undefined;
}

/** Makes the folders of `relative` under `folder`, each one checked to be a real folder (never a link). */
function makeFolders(folder: string, relative: string, entryName: string): void {
  let at = folder;
  for (const part of relative.split('/').filter((name) => name !== '' && name !== '.')) {
    at = path.join(at, part);
    try {
      mkdirSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new UnpackError(
          `the archive's entry ${entryName} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        );
      }
    }
    if (!lstatSync(at).isDirectory()) {
      throw new UnpackError(
        `the archive's entry ${entryName} would be written through ${path.relative(folder, at)}, which is not a folder`,
      );
    }
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
