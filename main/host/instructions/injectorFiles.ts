/**
 * Reading an injector's folder: `manifest.json` (data only) and the files it names, or a lone
 * `INSTRUCTIONS.md`. Every file must resolve, after following symlinks, inside the injector's own
 * folder: `..`, absolute paths and links out are refused with an error naming the file. The same
 * parser reads a folder on disk and a snapshot the person trusted (the files as they saw them).
 */
import path from 'node:path';
import type { Machine } from '../machine/Machine.js';
import { isInside } from '../files/isInside.js';
import {
  compileMatch,
  injectorManifestSchema,
  injectorNameSchema,
  MANIFEST_KEYS,
  type BrokenInjector,
  type Injector,
  type InjectorOrigin,
} from '../../../app/instructions/injectors.js';

/** The largest file an injector may name. */
export const MAX_INJECTOR_FILE_BYTES = 64 * 1024;
const MANIFEST = 'manifest.json';
const STATIC = 'INSTRUCTIONS.md';

/** A file that cannot be used, with the reason naming it. */
export class InjectorFileProblem extends Error {}

/** Reads files of one injector folder by relative path; rejects with {@link InjectorFileProblem}. */
export type InjectorFileReader = { has(file: string): Promise<boolean>; read(file: string): Promise<string> };

/** What reading folders needs of the machine they are on. */
export type FolderFiles = Pick<Machine, 'realpath' | 'readFile' | 'list' | 'stat'>;

/**
 * Reads files of the folder `dir` on its machine, each confined to it. `has` answers for a name in
 * the folder itself (as it is listed: a link counts, wherever it leads).
 */
export async function folderReader(
  machine: FolderFiles,
  dir: string,
): Promise<InjectorFileReader & { readonly files: Map<string, string> }> {
  const root = await machine.realpath(dir);
  const files = new Map<string, string>();
  let names: Promise<Set<string>> | undefined;
  const locate = async (file: string): Promise<string> => {
    if (path.isAbsolute(file) || /^[A-Za-z]:/.test(file)) {
      throw new InjectorFileProblem(`"${file}" is an absolute path; an injector may name only files in its own folder`);
    }
    if (file.split(/[\\/]/).includes('..')) {
      throw new InjectorFileProblem(`"${file}" climbs out of the injector's folder with ".."`);
    }
    let real: string;
    try {
      real = await machine.realpath(path.join(root, file));
    } catch {
      throw new InjectorFileProblem(`"${file}" is missing`);
    }
    if (!isInside(root, real) || real === root) {
      throw new InjectorFileProblem(`"${file}" leads outside the injector's folder (through a symbolic link); Baton does not follow it`);
    }
    return real;
  };
  return {
    files,
    has: async (file) => {
      names ??= machine.list(root).then(
        (entries) => new Set(entries.map((entry) => entry.name)),
        () => new Set<string>(),
      );
      return (await names).has(file);
    },
    read: async (file) => {
      const real = await locate(file);
      // The limit is kept by the read itself: a file that grows after a check brings in nothing more.
      let found: { data: Buffer; tooLarge: boolean };
      try {
        found = await machine.readFile(real, MAX_INJECTOR_FILE_BYTES);
      } catch (error) {
        throw new InjectorFileProblem(
          (error as NodeJS.ErrnoException).code === 'EINVAL' || (error as NodeJS.ErrnoException).code === 'EISDIR'
            ? `"${file}" is not a file`
            : `"${file}" could not be read: ${(error as Error).message}`,
        );
      }
      if (found.tooLarge) {
        throw new InjectorFileProblem(`"${file}" is larger than ${MAX_INJECTOR_FILE_BYTES / 1024} KiB`);
      }
      const text = found.data.toString('utf8');
      files.set(file, text);
      return text;
    },
  };
}

/** Reads files from a snapshot (what the person trusted). */
export function snapshotReader(files: Readonly<Record<string, string>>): InjectorFileReader {
  return {
    has: (file) => Promise.resolve(Object.hasOwn(files, file)),
    read: (file) =>
      Object.hasOwn(files, file)
        ? Promise.resolve(files[file]!)
        : Promise.reject(new InjectorFileProblem(`"${file}" was not among the files you trusted`)),
  };
}

/**
 * Parses one injector folder named `dirName`. A manifest's unknown keys (tools, permissions,
 * code…) are listed as ignored and contribute nothing.
 */
export async function parseInjector(
  dirName: string,
  origin: InjectorOrigin,
  folder: string,
  files: InjectorFileReader,
): Promise<Injector | BrokenInjector> {
  const broken = (problem: string): BrokenInjector => ({ name: dirName, origin, folder, problem });
  try {
    if (await files.has(MANIFEST)) {
      let raw: unknown;
      try {
        raw = JSON.parse(await files.read(MANIFEST));
      } catch (error) {
        if (error instanceof InjectorFileProblem) {
          throw error;
        }
        throw new InjectorFileProblem(`"${MANIFEST}" is not valid JSON: ${(error as Error).message}`);
      }
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        throw new InjectorFileProblem(`"${MANIFEST}" must hold a JSON object`);
      }
      const record = raw as Record<string, unknown>;
      const ignored = Object.keys(record).filter((key) => !(MANIFEST_KEYS as readonly string[]).includes(key));
      const parsed = injectorManifestSchema.safeParse(
        Object.fromEntries(MANIFEST_KEYS.filter((key) => key in record).map((key) => [key, record[key]])),
      );
      if (!parsed.success) {
        throw new InjectorFileProblem(
          `"${MANIFEST}": ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'manifest'}: ${issue.message}`).join('; ')}`,
        );
      }
      const manifest = parsed.data;
      try {
        compileMatch(manifest.match);
      } catch (error) {
        throw new InjectorFileProblem(`"${MANIFEST}": match is not a valid regular expression (${(error as Error).message})`);
      }
      const instructions = manifest.instructions === undefined ? '' : await files.read(manifest.instructions);
      const context: Array<{ file: string; text: string }> = [];
      for (const file of manifest.context) {
        context.push({ file, text: await files.read(file) });
      }
      return {
        name: manifest.name,
        description: manifest.description,
        when: manifest.when,
        match: manifest.match ?? null,
        origin,
        folder,
        instructions,
        context,
        ignored,
      };
    }
    if (await files.has(STATIC)) {
      if (!injectorNameSchema.safeParse(dirName).success) {
        throw new InjectorFileProblem(`the folder name "${dirName}" is not a usable injector name (letters, digits, ".", "_" and "-")`);
      }
      return {
        name: dirName,
        description: '',
        when: 'every_turn',
        match: null,
        origin,
        folder,
        instructions: await files.read(STATIC),
        context: [],
        ignored: [],
      };
    }
    return broken(`the folder has neither ${MANIFEST} nor ${STATIC}`);
  } catch (error) {
    if (error instanceof InjectorFileProblem) {
      return broken(error.message);
    }
    throw error;
  }
}

/** One injector folder as the person trusted it: the files read from it, or why it could not be read. */
export type InjectorSnapshot = { dir: string; files: Record<string, string>; problem?: string };

/**
 * Reads every injector folder under `parent` on its machine (each a subfolder, confined to
 * `boundary`) into snapshots: exactly the files the parser reads. A missing parent gives none.
 */
export async function snapshotInjectors(machine: FolderFiles, parent: string, boundary: string): Promise<InjectorSnapshot[]> {
  let real: string;
  try {
    real = await machine.realpath(parent);
  } catch {
    return [];
  }
  if (!isInside(boundary, real)) {
    return [
      {
        dir: path.basename(parent),
        files: {},
        problem: `"${path.relative(boundary, parent)}" leads outside ${boundary} (through a symbolic link); Baton does not follow it`,
      },
    ];
  }
  const snapshots: InjectorSnapshot[] = [];
  const entries = await machine.list(real).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(real, entry.name);
    let target: string;
    try {
      target = await machine.realpath(dir);
    } catch {
      continue;
    }
    if ((await machine.stat(target).catch(() => undefined))?.kind !== 'folder') {
      continue;
    }
    if (!isInside(real, target)) {
      snapshots.push({
        dir: entry.name,
        files: {},
        problem: `"${entry.name}" leads outside the folder's injectors (through a symbolic link); Baton does not follow it`,
      });
      continue;
    }
    const reader = await folderReader(machine, target);
    const parsed = await parseInjector(entry.name, 'folder', target, reader);
    snapshots.push({
      dir: entry.name,
      files: Object.fromEntries(reader.files),
      ...('problem' in parsed ? { problem: parsed.problem } : {}),
    });
  }
  return snapshots;
}

/** Reads every injector folder under `parent` on its machine (the person's own, in the data folder). */
export async function readInjectorFolders(
  machine: FolderFiles,
  parent: string,
  origin: InjectorOrigin,
): Promise<Array<Injector | BrokenInjector>> {
  const entries = await machine.list(parent).catch(() => []);
  const read: Array<Injector | BrokenInjector> = [];
  for (const entry of entries.filter((each) => each.kind === 'folder').sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(parent, entry.name);
    read.push(await parseInjector(entry.name, origin, dir, await folderReader(machine, dir)));
  }
  return read;
}
