/**
 * The agent's `fs/read_text_file` and `fs/write_text_file`, confined to the session's folders.
 * Paths must be absolute; what they really point to (symlinks resolved) must lie inside a root,
 * so `..` and symlink escapes are refused. Writes go to a temporary file that is then renamed; it
 * takes the mode (and, where allowed, the owner) of the file it replaces, so a 0600 `.env` stays
 * 0600 and a script keeps its execute bit.
 */
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { readTextAtMost } from '../files/boundedRead.js';
import { isInside } from '../files/isInside.js';
import path from 'node:path';

/** Largest file handed to an agent in one read. */
const MAX_READ_BYTES = 32 * 1024 * 1024;

/** Why a file request was refused; the message goes back to the agent. */
export class FileAccessError extends Error {
  constructor(
    message: string,
    readonly kind: 'outside' | 'not-found' | 'invalid',
  ) {
    super(message);
  }
}

/**
 * Gives `temporary` the mode and owner of `target`, or, for a new file, the mode a plain create
 * would have had (0666 less the umask): the temporary file itself starts owner-only, so its
 * content is never readable by others before the mode is settled.
 */
async function keepModeOf(target: string, temporary: string): Promise<void> {
  let existing: Awaited<ReturnType<typeof stat>> | undefined;
  try {
    existing = await stat(target);
  } catch {
    existing = undefined;
  }
  if (!existing) {
    const mask = process.umask();
    await chmod(temporary, 0o666 & ~mask);
    return;
  }
  try {
    // Only root may give a file away; for anyone else the owner is already the writer.
    await chown(temporary, existing.uid, existing.gid);
  } catch {
    // Not allowed: the file stays the writer's, as any editor's save would leave it.
  }
  await chmod(temporary, existing.mode & 0o7777);
}

/** File access for one session. */
export class SessionFiles {
  constructor(private readonly roots: readonly string[]) {}

  /** Reads a text file, optionally from a 1-based line and for a number of lines. */
  async read(file: string, line?: number | null, limit?: number | null): Promise<string> {
    const real = await this.confine(file, 'read');
    const found = await readTextAtMost(real, MAX_READ_BYTES);
    if (found.kind === 'not-a-file') {
      throw new FileAccessError(`${file} is not a file.`, 'invalid');
    }
    if (found.kind === 'too-large') {
      throw new FileAccessError(`${file} is larger than ${MAX_READ_BYTES / 1024 / 1024} MiB.`, 'invalid');
    }
    const content = found.text;
    if (!line && !limit) {
      return content;
    }
    const lines = content.split('\n');
    const start = Math.max((line ?? 1) - 1, 0);
    return lines.slice(start, limit ? start + limit : undefined).join('\n');
  }

  /** Writes a text file, creating it (and missing folders inside the root) if needed. */
  async write(file: string, content: string): Promise<void> {
    const real = await this.confine(file, 'write');
    await mkdir(path.dirname(real), { recursive: true });
    const temporary = path.join(path.dirname(real), `.${path.basename(real)}.baton-${randomBytes(4).toString('hex')}`);
    try {
      await writeFile(temporary, content, { encoding: 'utf8', mode: 0o600 });
      await keepModeOf(real, temporary);
      await rename(temporary, real);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  /** The real path `file` stands for, after checking it lies inside a root. */
  private async confine(file: string, purpose: 'read' | 'write'): Promise<string> {
    if (!path.isAbsolute(file)) {
      throw new FileAccessError(`The path must be absolute: ${file}`, 'invalid');
    }
    const roots = await Promise.all(this.roots.map((root) => realpath(root)));
    const wanted = path.resolve(file);
    let real: string;
    try {
      real = await realpath(wanted);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw error;
      }
      if (purpose === 'read') {
        throw new FileAccessError(`No such file: ${file}`, 'not-found');
      }
      // A new file: its nearest existing folder decides where it really goes.
      let existing = path.dirname(wanted);
      const rest = [path.basename(wanted)];
      for (;;) {
        try {
          existing = await realpath(existing);
          break;
        } catch {
          rest.unshift(path.basename(existing));
          existing = path.dirname(existing);
        }
      }
      real = path.join(existing, ...rest);
    }
    if (!roots.some((root) => isInside(root, real))) {
      throw new FileAccessError(`${file} is outside the session's folder${roots.length > 1 ? 's' : ''} (${this.roots.join(', ')}).`, 'outside');
    }
    return real;
  }
}
