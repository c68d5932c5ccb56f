/**
 * The injectors a conversation can select, from three places, the first of a name winning: the
 * person's own (`<data>/instructions/<name>/`, read as they are), the working folder's
 * (`.agents/instructions/<name>/`, only as the person trusted them), and Baton's built-in ones.
 * Every text handed out has the secrets Baton knows redacted.
 */
import path from 'node:path';
import { InjectorUnavailableError } from '../../../app/errors.js';
import { BUILTIN_INJECTORS, redactSecrets, type BrokenInjector, type Injector } from '../../../app/instructions/injectors.js';
import { parseInjector, readInjectorFolders, snapshotReader, type FolderFiles } from './injectorFiles.js';
import type { TrustedFolder } from './ProjectInstructions.js';

/** The folder of the person's own injectors in a data folder. */
export function personInjectorFolder(dataDir: string): string {
  return path.join(dataDir, 'instructions');
}

/** What one working folder makes available. */
export type AvailableInjectors = { injectors: Injector[]; broken: BrokenInjector[] };

/** The injectors read for one moment (a turn, a preview): the person's own, and the trusted folder's. */
export type InjectorSources = { personal: Array<Injector | BrokenInjector>; folder: Array<Injector | BrokenInjector> };

const isBroken = (entry: Injector | BrokenInjector): entry is BrokenInjector => 'problem' in entry;

/** Finds and reads injectors. */
export class InjectorRegistry {
  constructor(
    private readonly dataDir: string | undefined,
    /** The host's own machine, whose data folder holds the person's injectors. */
    private readonly home: FolderFiles,
    /** The secret values Baton knows now (toolbox secrets, keys in agents' settings). */
    private readonly secrets: () => readonly string[],
  ) {}

  /** Reads the person's own injectors, and the trusted folder's as the person trusted them. */
  async read(trusted: TrustedFolder | null): Promise<InjectorSources> {
    const personal = this.dataDir ? await readInjectorFolders(this.home, personInjectorFolder(this.dataDir), 'data') : [];
    const folder: Array<Injector | BrokenInjector> = [];
    for (const snapshot of trusted?.injectors ?? []) {
      const dir = path.join(trusted!.folder, '.agents', 'instructions', snapshot.dir);
      folder.push(
        snapshot.problem !== undefined
          ? { name: snapshot.dir, origin: 'folder', folder: dir, problem: snapshot.problem }
          : await parseInjector(snapshot.dir, 'folder', dir, snapshotReader(snapshot.files)),
      );
    }
    return { personal, folder };
  }

  /** Every injector of the sources, in precedence order (the person's, the trusted folder's, Baton's); the broken ones apart. */
  available(sources: InjectorSources): AvailableInjectors {
    const entries: Array<Injector | BrokenInjector> = [...sources.personal, ...sources.folder, ...BUILTIN_INJECTORS];
    const seen = new Set<string>();
    const injectors: Injector[] = [];
    const broken: BrokenInjector[] = [];
    const secrets = this.secrets();
    for (const entry of entries) {
      if (seen.has(entry.name)) {
        continue;
      }
      seen.add(entry.name);
      if (isBroken(entry)) {
        broken.push(entry);
      } else {
        injectors.push(redacted(entry, secrets));
      }
    }
    return { injectors, broken };
  }

  /**
   * The injectors a conversation selected, in its order. An unknown or vanished name, or one
   * whose files are refused, fails with the typed error naming it.
   */
  resolve(names: readonly string[], sources: InjectorSources): Injector[] {
    if (names.length === 0) {
      return [];
    }
    const { injectors, broken } = this.available(sources);
    return names.map((name) => {
      const found = injectors.find((injector) => injector.name === name);
      if (found) {
        return found;
      }
      const problem = broken.find((entry) => entry.name === name);
      throw new InjectorUnavailableError(
        name,
        problem
          ? `${problem.problem} (in ${problem.folder})`
          : 'no injector of that name is built in, in your instructions folder, or in this working folder as you trusted it; it may have been removed, or the folder is no longer trusted. Choose the injectors again in Instructions.',
      );
    });
  }
}

function redacted(injector: Injector, secrets: readonly string[]): Injector {
  if (secrets.length === 0) {
    return injector;
  }
  return Object.freeze({
    ...injector,
    instructions: redactSecrets(injector.instructions, secrets),
    context: injector.context.map(({ file, text }) => ({ file, text: redactSecrets(text, secrets) })),
  });
}
