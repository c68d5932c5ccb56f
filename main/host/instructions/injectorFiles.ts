/**
 * Reading an injector's folder: `manifest.json` (data only) and the files it names, or a lone
 * `INSTRUCTIONS.md`. Every file must resolve, after following symlinks, inside the injector's own
 * folder: `..`, absolute paths and links out are refused with an error naming the file. The same
 * parser reads a folder on disk and a snapshot the person trusted (the files as they saw them).
 */
import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readTextAtMostSync } from '../machine/boundedRead.js';
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

/** Reads files of one injector folder by relative path; throws {@link InjectorFileProblem}. */
export type InjectorFileReader = { has(file: string): boolean; read(file: string): string };

/** Reads files of the folder `dir` on disk, each confined to it. */
export function diskReader(dir: string): InjectorFileReader & { readonly files: Map<string, string> } {
  const root = realpathSync(dir);
  const files = new Map<string, string>();
  const locate = (file: string): string => {
    if (path.isAbsolute(file) || /^[A-Za-z]:/.test(file)) {
      throw new InjectorFileProblem(`"${file}" is an absolute path; an injector may name only files in its own folder`);
    }
    if (file.split(/[\\/]/).includes('..')) {
      throw new InjectorFileProblem(`"${file}" climbs out of the injector's folder with ".."`);
    }
    let real: string;
    try {
      real = realpathSync(path.join(root, file));
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
    has: (file) => {
      try {
        lstatSync(path.join(root, file));
        return true;
      } catch {
        return false;
      }
    },
    read: (file) => {
      const real = locate(file);
      // The limit is kept by the read itself: a file that grows after a check brings in nothing more.
      const found = readTextAtMostSync(real, MAX_INJECTOR_FILE_BYTES);
      if (found.kind === 'not-a-file') {
        throw new InjectorFileProblem(`"${file}" is not a file`);
      }
      if (found.kind === 'too-large') {
        throw new InjectorFileProblem(`"${file}" is larger than ${MAX_INJECTOR_FILE_BYTES / 1024} KiB`);
      }
      files.set(file, found.text);
      return found.text;
    },
  };
}

/** Reads files from a snapshot (what the person trusted). */
export function snapshotReader(files: Readonly<Record<string, string>>): InjectorFileReader {
  return {
    has: (file) => Object.hasOwn(files, file),
    read: (file) => {
      if (!Object.hasOwn(files, file)) {
        throw new InjectorFileProblem(`"${file}" was not among the files you trusted`);
      }
      return files[file]!;
    },
  };
}

/**
 * Parses one injector folder named `dirName`. A manifest's unknown keys (tools, permissions,
 * code…) are listed as ignored and contribute nothing.
 */
export function parseInjector(
  dirName: string,
  origin: InjectorOrigin,
  folder: string,
  files: InjectorFileReader,
): Injector | BrokenInjector {
  const broken = (problem: string): BrokenInjector => ({ name: dirName, origin, folder, problem });
  try {
    if (files.has(MANIFEST)) {
      let raw: unknown;
      try {
        raw = JSON.parse(files.read(MANIFEST));
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
      const instructions = manifest.instructions === undefined ? '' : files.read(manifest.instructions);
      const context = manifest.context.map((file) => ({ file, text: files.read(file) }));
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
    if (files.has(STATIC)) {
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
        instructions: files.read(STATIC),
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
 * Reads every injector folder under `parent` (each a subfolder, confined to `boundary`) into
 * snapshots: exactly the files the parser reads. A missing parent gives none.
 */
export function snapshotInjectors(parent: string, boundary: string): InjectorSnapshot[] {
  let real: string;
  try {
    real = realpathSync(parent);
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
  for (const entry of readdirSync(real, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(real, entry.name);
    let target: string;
    try {
      target = realpathSync(dir);
    } catch {
      continue;
    }
    if (!lstatSync(target).isDirectory()) {
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
    const reader = diskReader(target);
    const parsed = parseInjector(entry.name, 'folder', target, reader);
    snapshots.push({
      dir: entry.name,
      files: Object.fromEntries(reader.files),
      ...('problem' in parsed ? { problem: parsed.problem } : {}),
    });
  }
  return snapshots;
}

/** Reads every injector folder under `parent` on disk (the person's own, in the data folder). */
export function readInjectorFolders(parent: string, origin: InjectorOrigin): Array<Injector | BrokenInjector> {
  let entries;
  try {
    entries = readdirSync(parent, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((entry) => {
      const dir = path.join(parent, entry.name);
      return parseInjector(entry.name, origin, dir, diskReader(dir));
    });
}
