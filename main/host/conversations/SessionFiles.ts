/**
 * The agent's `fs/read_text_file` and `fs/write_text_file`, confined to the session's folders.
 * Paths must be absolute; what they really point to (symlinks resolved) must lie inside a root,
 * so `..` and symlink escapes are refused. Writes go through {@link ConfinedTree} (a temporary
 * file renamed over the target, never through a link planted meanwhile); the file keeps the mode
 * (and, where allowed, the owner) of the file it replaces, so a 0600 `.env` stays 0600 and a
 * script keeps its execute bit. A new file gets the mode a plain create would have. Every look
 * and write goes through the machine the folders are on, so the checks run where the files are.
 */
import path from 'node:path';
import { isInside } from '../files/isInside.js';
import type { Machine } from '../machine/Machine.js';

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

/** File access for one session. */
export class SessionFiles {
  constructor(
    /** The machine the folders are on. */
    private readonly machine: Machine,
    private readonly roots: readonly string[],
    /**
     * A missing file inside the folder reads as empty (an agent that cannot tell "no such file" from a failed read: see
     * `adapters/quirks/geminiMissingFile.ts`).
     */
    private readonly missingAsEmpty = false,
  ) {}

  /** Reads a text file, optionally from a 1-based line and for a number of lines. */
  async read(file: string, line?: number | null, limit?: number | null): Promise<string> {
    let real: string;
    try {
      real = await this.confine(file, 'read');
    } catch (error) {
      if (this.missingAsEmpty && error instanceof FileAccessError && error.kind === 'not-found') {
        // Still only inside the folder: where a new file there would go.
        await this.confine(file, 'write');
        return '';
      }
      throw error;
    }
    let found: { data: Buffer; tooLarge: boolean };
    try {
      found = await this.machine.readFile(real, MAX_READ_BYTES);
    } catch (error) {
      // A FIFO, a device or a folder (refused before a byte is read), or a final link (refused by the open).
      if (['EINVAL', 'ELOOP', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) {
        throw new FileAccessError(`${file} is not a file.`, 'invalid');
      }
      throw error;
    }
    if (found.tooLarge) {
      throw new FileAccessError(`${file} is larger than ${MAX_READ_BYTES / 1024 / 1024} MiB.`, 'invalid');
    }
    const content = found.data.toString('utf8');
    if (!line && !limit) {
      return content;
    }
    const lines = content.split('\n');
    const start = Math.max((line ?? 1) - 1, 0);
    return lines.slice(start, limit ? start + limit : undefined).join('\n');
  }

  /** Writes a text file, creating it (and missing folders inside the root) if needed; says what it wrote. */
  async write(file: string, content: string): Promise<{ path: string; bytes: number; created: boolean }> {
    const { real, root } = await this.confineWithRoot(file, 'write');
    const existing = await this.machine.stat(real).catch(() => undefined);
    const data = Buffer.from(content, 'utf8');
    // A new file (no mode given) gets what a plain create gives on that machine.
    await this.machine.writeConfined(
      root,
      path.relative(root, real).split(path.sep).join('/'),
      data,
      existing?.mode,
      existing ? { uid: existing.uid, gid: existing.gid } : undefined,
    );
    return { path: real, bytes: data.length, created: existing === undefined };
  }

  /** The real path `file` stands for, after checking it lies inside a root. */
  private async confine(file: string, purpose: 'read' | 'write'): Promise<string> {
    return (await this.confineWithRoot(file, purpose)).real;
  }

  /** The real path `file` stands for and the (real) root it lies in. */
  private async confineWithRoot(file: string, purpose: 'read' | 'write'): Promise<{ real: string; root: string }> {
    if (!path.isAbsolute(file)) {
      throw new FileAccessError(`The path must be absolute: ${file}`, 'invalid');
    }
    const roots = await Promise.all(this.roots.map((root) => this.machine.realpath(root)));
    const wanted = path.resolve(file);
    let real: string;
    try {
      real = await this.machine.realpath(wanted);
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
          existing = await this.machine.realpath(existing);
          break;
        } catch {
          rest.unshift(path.basename(existing));
          existing = path.dirname(existing);
        }
      }
      real = path.join(existing, ...rest);
    }
    const root = roots.find((candidate) => isInside(candidate, real));
    if (root === undefined || root === real) {
      throw new FileAccessError(
        `${file} is outside the session's folder${roots.length > 1 ? 's' : ''} (${this.roots.join(', ')}).`,
        'outside',
      );
    }
    return { real, root };
  }
}
