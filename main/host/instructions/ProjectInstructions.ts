/**
 * What a working folder contributes — its own instructions, `.baton/instructions.md`, and its
 * injectors, `.agents/instructions/<name>/` (in the folder or its repository root) — which reach
 * an agent only once the person has trusted that folder. Trust is kept per real path and pinned
 * to the digest of the files the person saw, and keeps a copy of them: when they change (a
 * `git pull`), the trusted copy is still the one used until the person trusts the new files.
 * Nothing is read from outside the folder (no symlink out), and agents are only ever given the
 * trusted copy, never the files as they are now.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readTextAtMostSync } from '../machine/boundedRead.js';
import { z } from 'zod';
import { InvalidRequestError } from '../../../app/errors.js';
import { LOCAL_MACHINE_ID } from '../../../app/ids.js';
import type { EventStore } from '../store/EventStore.js';
import { sha256Hex } from '../sha256.js';
import { redactSecrets } from '../../../app/instructions/injectors.js';
import { snapshotInjectors, type InjectorSnapshot } from './injectorFiles.js';

/** Where the folder's instructions live, relative to it. */
export const PROJECT_FILE = path.join('.baton', 'instructions.md');
/** Where the folder's injectors live, relative to it. */
export const PROJECT_INJECTORS = path.join('.agents', 'instructions');
/** The largest file read (its text then counts toward the bundle's own limit). */
const MAX_FILE_BYTES = 64 * 1024;

const snapshotSchema = z.object({ dir: z.string(), files: z.record(z.string(), z.string()), problem: z.string().optional() });
const trustSchema = z.object({
  sha256: z.string(),
  text: z.string(),
  injectors: z.array(snapshotSchema).default([]),
  trustedAt: z.string(),
});
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
  /** The folder's injectors now, as files read (each confined to its injector's folder). */
  injectors: InjectorSnapshot[];
  /** What the person trusted last, if anything. */
  trusted: Trust | null;
  /** "untrusted" (never trusted), "changed" (the files differ from the trusted ones), "trusted", or "none" (nothing to contribute). */
  state: 'none' | 'untrusted' | 'changed' | 'trusted';
  /** Since the person trusted the folder: each file added, changed or removed, in words. */
  changes: string[];
};

/**
 * The digest of a contribution. A folder with only its instructions file keeps the digest of that
 * text alone, so trust given before injectors existed still holds.
 */
function contributionDigest(text: string | null, injectors: readonly InjectorSnapshot[]): string {
  return injectors.length === 0
    ? sha256Hex(text ?? '')
    : sha256Hex(
        JSON.stringify({
          instructions: text,
          injectors: injectors.map(({ dir, files, problem }) => ({
            dir,
            problem: problem ?? null,
            files: Object.entries(files).sort(([a], [b]) => a.localeCompare(b)),
          })),
        }),
      );
}

/** Each contributed file added, changed or removed between two contributions, in words. */
function describeChanges(before: Trust, text: string | null, injectors: readonly InjectorSnapshot[]): string[] {
  const flatten = (instructions: string | null, snapshots: readonly InjectorSnapshot[]): Map<string, string> => {
    const files = new Map<string, string>();
    if (instructions !== null && instructions !== '') {
      files.set(PROJECT_FILE, instructions);
    }
    for (const snapshot of snapshots) {
      for (const [file, content] of Object.entries(snapshot.files)) {
        files.set(path.join(PROJECT_INJECTORS, snapshot.dir, file), content);
      }
    }
    return files;
  };
  const old = flatten(before.text, before.injectors);
  const now = flatten(text, injectors);
  const changes: string[] = [];
  for (const [file, content] of now) {
    if (!old.has(file)) {
      changes.push(`${file} is new`);
    } else if (old.get(file) !== content) {
      changes.push(`${file} changed`);
    }
  }
  for (const file of old.keys()) {
    if (!now.has(file)) {
      changes.push(`${file} was removed`);
    }
  }
  return changes;
}

/**
 * The working folder whose own instructions and injectors a place may contribute: only a folder on
 * the host's own machine, where they are read. A folder on another machine contributes none yet:
 * it is not read there, and this computer's folder of the same path is another folder, whose trust
 * must not reach it.
 */
export function folderOf(
  place: { cwd: string; machine?: string | undefined },
  isHome: (machineId: string) => boolean = (machineId) => machineId === LOCAL_MACHINE_ID,
): string | undefined {
  return !place.machine || isHome(place.machine) ? place.cwd : undefined;
}

/** The folder holding `.baton/instructions.md` or `.agents/instructions/`: the working folder, else the repository root above it. */
function holder(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    if (existsSync(path.join(dir, PROJECT_FILE)) || existsSync(path.join(dir, PROJECT_INJECTORS))) {
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
  constructor(
    private readonly store: EventStore,
    /** Secret values Baton knows: kept out of the stored copy of the folder's injectors. */
    private readonly secrets: () => readonly string[] = () => [],
  ) {}

  /** What the working folder contributes and how it stands. */
  read(cwd: string): FolderInstructions {
    const found = this.trustOf(cwd);
    if (!found) {
      return {
        folder: null,
        file: null,
        text: null,
        sha256: null,
        problem: null,
        injectors: [],
        trusted: null,
        state: 'none',
        changes: [],
      };
    }
    const { folder, trusted } = found;
    const file = path.join(folder, PROJECT_FILE);
    let text: string | null = null;
    let problem: string | null = null;
    const injectors = snapshotInjectors(path.join(folder, PROJECT_INJECTORS), folder);
    // Without the file the folder contributes only its injectors.
    if (existsSync(file)) {
      try {
        // The file must really be inside its folder: a symlink out is refused, not followed.
        const real = realpathSync(file);
        const found = real.startsWith(folder + path.sep) ? readTextAtMostSync(real, MAX_FILE_BYTES) : undefined;
        if (!found || found.kind === 'not-a-file') {
          problem = `${PROJECT_FILE} points outside ${folder}; Baton does not follow it`;
        } else if (found.kind === 'too-large') {
          problem = `${PROJECT_FILE} is larger than ${MAX_FILE_BYTES / 1024} KiB`;
        } else {
          text = found.text;
        }
      } catch (error) {
        problem = `${PROJECT_FILE} could not be read: ${(error as Error).message}`;
      }
    }
    const contributes = text !== null || injectors.length > 0;
    const sha256 = contributes ? contributionDigest(text, injectors) : null;
    const state = !trusted ? 'untrusted' : trusted.sha256 === sha256 ? 'trusted' : 'changed';
    const changes = trusted && state === 'changed' ? describeChanges(trusted, text, injectors) : [];
    return { folder, file: existsSync(file) ? file : null, text, sha256, problem, injectors, trusted, state, changes };
  }

  /** The folder's injectors as the person last trusted them (none when it is not trusted). */
  trustedInjectors(cwd: string): { folder: string; injectors: InjectorSnapshot[] } | null {
    const found = this.trustOf(cwd);
    return found?.trusted ? { folder: found.folder, injectors: found.trusted.injectors } : null;
  }

  /** The text that reaches agents for this working folder: the last trusted one, or nothing (the file itself is not read). */
  trustedText(cwd: string): string | null {
    const text = this.trustOf(cwd)?.trusted?.text;
    // Redacted on the way out too: a secret added to the toolbox after the trust is known now.
    return text === undefined || text === '' ? null : redactSecrets(text, this.secrets());
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
    if (!now.folder || now.sha256 === null || (now.text === null && now.problem !== null)) {
      throw new InvalidRequestError(now.problem ?? 'This folder has no .baton/instructions.md or .agents/instructions/ to trust.');
    }
    if (now.sha256 !== sha256) {
      throw new InvalidRequestError("The folder's instructions changed since you read them; read them again before trusting them.");
    }
    const secrets = this.secrets();
    const injectors = now.injectors.map((snapshot) => ({
      ...snapshot,
      files: Object.fromEntries(Object.entries(snapshot.files).map(([file, text]) => [file, redactSecrets(text, secrets)])),
    }));
    this.store.setSetting(trustKey(now.folder), {
      sha256,
      text: redactSecrets(now.text ?? '', secrets),
      injectors,
      trustedAt: new Date().toISOString(),
    } satisfies Trust);
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
