/**
 * What a working folder contributes — its own instructions, `.baton/instructions.md`, and its
 * injectors, `.agents/instructions/<name>/` (in the folder or its repository root) — which reach
 * an agent only once the person has trusted that folder. Trust is kept per real path and pinned
 * to the digest of the files the person saw, and keeps a copy of them: when they change (a
 * `git pull`), the trusted copy is still the one used until the person trusts the new files.
 * Nothing is read from outside the folder (no symlink out), and agents are only ever given the
 * trusted copy, never the files as they are now. The folder is read on its own machine; trust is
 * kept per machine (a folder on another machine is another folder, even at the same path).
 */
import path from 'node:path';
import { z } from 'zod';
import { InvalidRequestError } from '../../../app/errors.js';
import { LOCAL_MACHINE_ID } from '../../../app/ids.js';
import type { Machine } from '../machine/Machine.js';
import type { EventStore } from '../store/EventStore.js';
import { sha256Hex } from '../sha256.js';
import { redactSecrets } from '../../../app/instructions/injectors.js';
import { snapshotInjectors, type FolderFiles, type InjectorSnapshot } from './injectorFiles.js';

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

/** A working folder on the machine it is on. */
export type FolderPlace = { machine: FolderFiles & Pick<Machine, 'id'>; cwd: string };

/** What a trusted folder gives agents: its text and injectors as the person trusted them (the text's known secrets redacted). */
export type TrustedFolder = { folder: string; text: string | null; injectors: InjectorSnapshot[] };

/**
 * Whether `file` exists on the machine: false for a path that is not there or cannot be reached
 * (as a check on this computer always said); a failure of the machine itself (not connected) is
 * thrown, not taken for "none".
 */
async function exists(machine: FolderFiles, file: string): Promise<boolean> {
  try {
    await machine.stat(file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EACCES' || code === 'EPERM' || code === 'ENAMETOOLONG') {
      return false;
    }
    throw error;
  }
}

/** The folder holding `.baton/instructions.md` or `.agents/instructions/`: the working folder, else the repository root above it. */
async function holder({ machine, cwd }: FolderPlace): Promise<string | null> {
  let dir = path.resolve(cwd);
  for (;;) {
    if ((await exists(machine, path.join(dir, PROJECT_FILE))) || (await exists(machine, path.join(dir, PROJECT_INJECTORS)))) {
      return dir;
    }
    if (await exists(machine, path.join(dir, '.git'))) {
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
    /** Whether a machine is the host's own (its folders' trust is kept under their path alone, as before machines). */
    private readonly isHome: (machineId: string) => boolean = (machineId) => machineId === LOCAL_MACHINE_ID,
  ) {}

  /** What the working folder contributes and how it stands. */
  async read(place: FolderPlace): Promise<FolderInstructions> {
    const { machine } = place;
    const found = await this.trustOf(place);
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
    const injectors = await snapshotInjectors(machine, path.join(folder, PROJECT_INJECTORS), folder);
    // Without the file the folder contributes only its injectors.
    const hasFile = await exists(machine, file);
    if (hasFile) {
      try {
        // The file must really be inside its folder: a symlink out is refused, not followed.
        const real = await machine.realpath(file);
        const found = real.startsWith(folder + path.sep) ? await readBounded(machine, real) : undefined;
        if (!found || found === 'not-a-file') {
          problem = `${PROJECT_FILE} points outside ${folder}; Baton does not follow it`;
        } else if (found === 'too-large') {
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
    return { folder, file: hasFile ? file : null, text, sha256, problem, injectors, trusted, state, changes };
  }

  /**
   * What reaches agents for this working folder: the text and injectors the person last trusted
   * (the files themselves are not read), or null when it is not trusted.
   */
  async trusted(place: FolderPlace): Promise<TrustedFolder | null> {
    return this.given(await this.trustOf(place));
  }

  /** What reaches agents of a folder as read ({@link ProjectInstructions.read}): what the person trusted there, if anything. */
  given(found: { folder: string | null; trusted: Trust | null } | undefined): TrustedFolder | null {
    if (!found?.folder || !found.trusted) {
      return null;
    }
    const { text, injectors } = found.trusted;
    // Redacted on the way out too: a secret added to the toolbox after the trust is known now.
    return { folder: found.folder, text: text === '' ? null : redactSecrets(text, this.secrets()), injectors };
  }

  /** The folder holding the file (its real path) and what the person trusted there. */
  private async trustOf(place: FolderPlace): Promise<{ folder: string; key: string; trusted: Trust | null } | undefined> {
    const found = await holder(place);
    if (!found) {
      return undefined;
    }
    const folder = await place.machine.realpath(found);
    const key = this.keyOf(place, folder);
    return { folder, key, trusted: this.store.getSetting<Trust | null>(key, trustSchema.nullable(), null) };
  }

  /** Trusts the folder's file as the person saw it (its digest must still match). */
  async trust(place: FolderPlace, sha256: string): Promise<FolderInstructions> {
    const now = await this.read(place);
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
    this.store.setSetting(this.keyOf(place, now.folder), {
      sha256,
      text: redactSecrets(now.text ?? '', secrets),
      injectors,
      trustedAt: new Date().toISOString(),
    } satisfies Trust);
    return this.read(place);
  }

  /** The setting a folder's trust is kept in: its real path, after the id of its machine where that is not the host's own. */
  private keyOf(place: FolderPlace, folder: string): string {
    return `instructions.trust.${this.isHome(place.machine.id) ? folder : `${place.machine.id}\t${folder}`}`;
  }

  /** Stops trusting the folder: it contributes nothing from the next message on. */
  async untrust(place: FolderPlace): Promise<FolderInstructions> {
    const found = await this.trustOf(place);
    if (found) {
      this.store.setSetting(found.key, null);
    }
    return this.read(place);
  }
}

/** The file's text, read at most to the limit on its machine; what stands in the way otherwise. */
async function readBounded(machine: FolderFiles, file: string): Promise<{ text: string } | 'too-large' | 'not-a-file'> {
  try {
    const read = await machine.readFile(file, MAX_FILE_BYTES);
    return read.tooLarge ? 'too-large' : { text: read.data.toString('utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EINVAL') {
      return 'not-a-file';
    }
    throw error;
  }
}
