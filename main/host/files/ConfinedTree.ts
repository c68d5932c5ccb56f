/**
 * Writing and removing files of a working folder without ever reaching outside it, even when
 * something else (an agent's own shell, a background process) plants links or swaps folders while
 * Baton works. Node has no `openat`, so the folder chain is checked by name, twice:
 *   1. before anything is written, every folder from the root down is `lstat`ed: a link, or
 *      anything but a folder, is refused; a missing folder is made (one level at a time, never
 *      through a link) and `lstat`ed again;
 *   2. just before the rename that puts a file in place, each folder's device and inode are
 *      compared with what step 1 saw.
 * Temporary files are created with `O_EXCL | O_NOFOLLOW`, so a name planted where a temporary file
 * goes is never written through. The root itself must still be the real path it was recorded with.
 * Used by rewind, undo and branch (`checkpoints/restoreFiles.ts`) and by agents' file writes.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rename, rmdir, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';

/** A folder as `lstat` saw it. */
type Seen = { path: string; dev: number; ino: number };

/** Why a path inside the tree was refused (a link in the way, a folder swapped meanwhile, a path leaving the tree). */
export class OutsideTreeError extends Error {
  readonly kind = 'outside';
}

/** Flags of a temporary file: created here and now, never through a link. */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** One working folder, opened for confined writes. */
export class ConfinedTree {
  private constructor(
    /** The folder's absolute path as given (and as it really is). */
    readonly root: string,
    private readonly rootSeen: Seen,
  ) {}

  /**
   * Opens the folder. Refused when it is a link, not a folder, or (with `recordedReal`) when its
   * real path is not the one recorded: a folder swapped for a link since then.
   */
  static async open(root: string, recordedReal?: string): Promise<ConfinedTree> {
    const absolute = path.resolve(root);
    const stat = await lstat(absolute);
    if (stat.isSymbolicLink() || !stat.isDirectory()) {
      throw new OutsideTreeError(
        `${absolute} is ${stat.isSymbolicLink() ? 'a link' : 'not a folder'}; Baton writes only into the folder itself`,
      );
    }
    if (recordedReal !== undefined) {
      const real = await realpath(absolute);
      if (real !== recordedReal) {
        throw new OutsideTreeError(`${absolute} is now ${real}, not the folder ${recordedReal} that was recorded`);
      }
    }
    return new ConfinedTree(absolute, { path: absolute, dev: stat.dev, ino: stat.ino });
  }

  /** The absolute path of a relative one (with `/`), refused if it would leave the tree. */
  resolve(relative: string): string {
    const parts = relative.split('/');
    if (relative === '' || parts.some((part) => part === '' || part === '.' || part === '..') || path.isAbsolute(relative)) {
      throw new OutsideTreeError(`${relative} is not a path inside ${this.root}`);
    }
    return path.join(this.root, ...parts);
  }

  /**
   * Writes a file (through a temporary file renamed over the target), with `mode` and, where the
   * writer may give a file away, `owner`; missing folders are made.
   */
  async writeFile(relative: string, data: Buffer | string, mode: number, owner?: { uid: number; gid: number }): Promise<void> {
    const target = this.resolve(relative);
    const chain = await this.folders(relative, true);
    const temporary = this.temporaryBeside(target);
    const handle = await open(temporary, CREATE_FLAGS, 0o600);
    try {
      try {
        await handle.writeFile(data);
        if (owner) {
          // Only root may give a file away; for anyone else the owner is already the writer.
          await handle.chown(owner.uid, owner.gid).catch(() => undefined);
        }
        await handle.chmod(mode & 0o7777);
      } finally {
        await handle.close();
      }
      await this.unchanged(chain);
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  /** Puts a symbolic link with `linkTarget` in place (the link is stored as written, never followed). */
  async writeLink(relative: string, linkTarget: string): Promise<void> {
    const target = this.resolve(relative);
    const chain = await this.folders(relative, true);
    const temporary = this.temporaryBeside(target);
    await symlink(linkTarget, temporary);
    try {
      await this.unchanged(chain);
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  /** Removes a file or link (a missing one is fine), then the folders that removal left empty. */
  async remove(relative: string): Promise<void> {
    const target = this.resolve(relative);
    const chain = await this.folders(relative, false);
    if (chain === undefined) {
      // A folder above it is missing: so is the file.
      return;
    }
    await this.unchanged(chain);
    await unlink(target).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') {
        throw error;
      }
    });
    await this.pruneEmpty(chain.slice(1));
  }

  /**
   * Each folder from the root down to the one holding `relative`, as `lstat` saw it; a link or a
   * non-folder is refused. Missing folders are made with `create`; without it, undefined.
   */
  private async folders(relative: string, create: true): Promise<Seen[]>;
  private async folders(relative: string, create: false): Promise<Seen[] | undefined>;
  private async folders(relative: string, create: boolean): Promise<Seen[] | undefined> {
    const chain: Seen[] = [this.rootSeen];
    await this.unchanged(chain);
    const parts = relative.split('/').slice(0, -1);
    let current = this.root;
    for (const part of parts) {
      current = path.join(current, part);
      let stat = await lstat(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') {
          return undefined;
        }
        throw error;
      });
      if (!stat) {
        if (!create) {
          return undefined;
        }
        // One level at a time: `mkdir` does not follow a link in its last component.
        await mkdir(current).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') {
            throw error;
          }
        });
        stat = await lstat(current);
      }
      if (stat.isSymbolicLink()) {
        throw new OutsideTreeError(`${path.relative(this.root, current)} is a link; Baton does not write through it`);
      }
      if (!stat.isDirectory()) {
        throw new OutsideTreeError(`${path.relative(this.root, current)} is not a folder`);
      }
      chain.push({ path: current, dev: stat.dev, ino: stat.ino });
    }
    return chain;
  }

  /** Refuses when any folder of the chain is no longer the one seen (swapped, or replaced by a link). */
  private async unchanged(chain: readonly Seen[]): Promise<void> {
    for (const seen of chain) {
      const now = await lstat(seen.path).catch(() => undefined);
      if (!now || now.isSymbolicLink() || !now.isDirectory() || now.dev !== seen.dev || now.ino !== seen.ino) {
        throw new OutsideTreeError(
          `${seen.path === this.root ? this.root : path.relative(this.root, seen.path)} changed while Baton was writing (a folder was moved or replaced by a link)`,
        );
      }
    }
  }

  /** Removes the chain's folders, deepest first, while they are empty and still the ones seen. */
  private async pruneEmpty(below: readonly Seen[]): Promise<void> {
    for (const seen of [...below].reverse()) {
      try {
        await this.unchanged([seen]);
        if ((await readdir(seen.path)).length > 0) {
          return;
        }
        await rmdir(seen.path);
      } catch {
        return;
      }
    }
  }

  private temporaryBeside(target: string): string {
    return path.join(path.dirname(target), `.${path.basename(target)}.baton-${randomBytes(4).toString('hex')}`);
  }
}
