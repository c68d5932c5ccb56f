/**
 * A working folder's own instructions, `.baton/instructions.md` (in the folder or its repository
 * root), which reach an agent's system prompt only once the person has trusted that folder. Trust
 * is kept per real path and pinned to the digest of the text the person saw: when the file
 * changes (a `git pull`), the last trusted text is still the one used until the person trusts
 * the new one. The file is read only from inside its folder (no symlink out).
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { InvalidRequestError } from '../../../app/errors.js';
import type { EventStore } from '../store/EventStore.js';

/** Where the folder's instructions live, relative to it. */
export const PROJECT_FILE = path.join('.baton', 'instructions.md');
/** The largest file read (its text then counts toward the bundle's own limit). */
const MAX_FILE_BYTES = 64 * 1024;

const trustSchema = z.object({ sha256: z.string(), text: z.string(), trustedAt: z.string() });
type Trust = z.infer<typeof trustSchema>;

/** What a folder contributes, and whether it is trusted. */
export type FolderInstructions = {
  /** The folder the file belongs to (its real path), or null when there is no file. */
  folder: string | null;
  file: string | null;
  /** The file's text now (null: no file, or it could not be read safely). */
  text: string | null;
  sha256: string | null;
  /** Why the file is not used, when it could not be read safely. */
  problem: string | null;
  /** What the person trusted last, if anything. */
  trusted: { sha256: string; text: string; trustedAt: string } | null;
  /** "untrusted" (never trusted), "changed" (trusted text differs from the file now), "trusted", or "none" (no file). */
  state: 'none' | 'untrusted' | 'changed' | 'trusted';
};

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The folder holding `.baton/instructions.md`: the working folder, else the repository root above it. */
function holder(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    if (existsSync(path.join(dir, PROJECT_FILE))) {
      return dir;
    }
    if (existsSync(path.join(dir, '.git'))) {
      return null;
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      return null;
    }
    dir = parent;
  }
}

/** Reads and keeps trust for folders' instructions. */
export class ProjectInstructions {
  constructor(private readonly store: EventStore) {}

  /** What the working folder contributes and how it stands. */
  read(cwd: string): FolderInstructions {
    const found = this.trustOf(cwd);
    if (!found) {
      return { folder: null, file: null, text: null, sha256: null, problem: null, trusted: null, state: 'none' };
    }
    const { folder, trusted } = found;
    const file = path.join(folder, PROJECT_FILE);
    let text: string | null = null;
    let problem: string | null = null;
    try {
      // The file must really be inside its folder: a symlink out is refused, not followed.
      const real = realpathSync(file);
      if (!real.startsWith(folder + path.sep) || !lstatSync(real).isFile()) {
        problem = `${PROJECT_FILE} points outside ${folder}; Baton does not follow it`;
      } else if (lstatSync(real).size > MAX_FILE_BYTES) {
        problem = `${PROJECT_FILE} is larger than ${MAX_FILE_BYTES / 1024} KiB`;
      } else {
        text = readFileSync(real, 'utf8');
      }
    } catch (error) {
      problem = `${PROJECT_FILE} could not be read: ${(error as Error).message}`;
    }
    const sha256 = text === null ? null : sha(text);
    const state = !trusted ? 'untrusted' : trusted.sha256 === sha256 ? 'trusted' : 'changed';
    return { folder, file, text, sha256, problem, trusted, state };
  }

  /** The text that reaches agents for this working folder: the last trusted one, or nothing (the file itself is not read). */
  trustedText(cwd: string): string | null {
    return this.trustOf(cwd)?.trusted?.text ?? null;
  }

  /** The folder holding the file (its real path) and what the person trusted there. */
  private trustOf(cwd: string): { folder: string; trusted: Trust | null } | undefined {
    const found = holder(cwd);
    if (!found) {
      return undefined;
    }
    const folder = realpathSync(found);
    return { folder, trusted: this.store.getSetting<Trust | null>(trustKey(folder), trustSchema.nullable(), null) };
  }

  /** Trusts the folder's file as the person saw it (its digest must still match). */
  trust(cwd: string, sha256: string): FolderInstructions {
    const now = this.read(cwd);
    if (!now.folder || now.text === null || now.sha256 === null) {
      throw new InvalidRequestError(now.problem ?? 'This folder has no .baton/instructions.md to trust.');
    }
    if (now.sha256 !== sha256) {
      throw new InvalidRequestError('The folder\'s instructions changed since you read them; read them again before trusting them.');
    }
    this.store.setSetting(trustKey(now.folder), { sha256, text: now.text, trustedAt: new Date().toISOString() } satisfies Trust);
    return this.read(cwd);
  }

  /** Stops trusting the folder: it contributes nothing from the next message on. */
  untrust(cwd: string): FolderInstructions {
    const now = this.read(cwd);
    if (now.folder) {
      this.store.setSetting(trustKey(now.folder), null);
    }
    return this.read(cwd);
  }
}

function trustKey(folder: string): string {
  return `instructions.trust.${folder}`;
}
