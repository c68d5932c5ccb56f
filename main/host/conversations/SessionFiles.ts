/**
 * The agent's `fs/read_text_file` and `fs/write_text_file`, confined to the session's folders.
 * Paths must be absolute; what they really point to (symlinks resolved) must lie inside a root,
 * so `..` and symlink escapes are refused. Writes go to a temporary file that is then renamed.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
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

function inside(file: string, root: string): boolean {
  return file === root || file.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** File access for one session. */
export class SessionFiles {
  constructor(private readonly roots: readonly string[]) {}

  /** Reads a text file, optionally from a 1-based line and for a number of lines. */
  async read(file: string, line?: number | null, limit?: number | null): Promise<string> {
    const real = await this.confine(file, 'read');
    const info = await stat(real);
    if (!info.isFile()) {
      throw new FileAccessError(`${file} is not a file.`, 'invalid');
    }
    if (info.size > MAX_READ_BYTES) {
      throw new FileAccessError(`${file} is larger than ${MAX_READ_BYTES / 1024 / 1024} MiB.`, 'invalid');
    }
    const content = await readFile(real, 'utf8');
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
      await writeFile(temporary, content, 'utf8');
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
    if (!roots.some((root) => inside(real, root))) {
      throw new FileAccessError(`${file} is outside the session's folder${roots.length > 1 ? 's' : ''} (${this.roots.join(', ')}).`, 'outside');
    }
    return real;
  }
}
