/**
 * The injectors a conversation can select, from three places, the first of a name winning: the
 * person's own (`<data>/instructions/<name>/`, read as they are), the working folder's
 * (`.agents/instructions/<name>/`, only as the person trusted them), and Baton's built-in ones.
 * Every text handed out has the secrets Baton knows redacted.
 */
import path from 'node:path';
import { InjectorUnavailableError } from '../../../app/errors.js';
import { BUILTIN_INJECTORS, redactSecrets, type BrokenInjector, type Injector } from '../../../app/instructions/injectors.js';
import { parseInjector, readInjectorFolders, snapshotReader } from './injectorFiles.js';
import type { ProjectInstructions } from './ProjectInstructions.js';

/** The folder of the person's own injectors in a data folder. */
export function personInjectorFolder(dataDir: string): string {
  return path.join(dataDir, 'instructions');
}

/** What one working folder makes available. */
export type AvailableInjectors = { injectors: Injector[]; broken: BrokenInjector[] };

const isBroken = (entry: Injector | BrokenInjector): entry is BrokenInjector => 'problem' in entry;

/** Finds and reads injectors. */
export class InjectorRegistry {
  constructor(
    private readonly dataDir: string | undefined,
    private readonly projects: ProjectInstructions,
    /** The secret values Baton knows now (toolbox secrets, keys in agents' settings). */
    private readonly secrets: () => readonly string[],
  ) {}

  /** Every injector for `cwd`, in precedence order (the person's, the trusted folder's, Baton's); the broken ones apart. */
  available(cwd?: string): AvailableInjectors {
    const entries: Array<Injector | BrokenInjector> = [];
    if (this.dataDir) {
      entries.push(...readInjectorFolders(personInjectorFolder(this.dataDir), 'data'));
    }
    const trusted = cwd ? this.projects.trustedInjectors(cwd) : null;
    for (const snapshot of trusted?.injectors ?? []) {
      const folder = path.join(trusted!.folder, '.agents', 'instructions', snapshot.dir);
      entries.push(
        snapshot.problem !== undefined
          ? { name: snapshot.dir, origin: 'folder', folder, problem: snapshot.problem }
          : parseInjector(snapshot.dir, 'folder', folder, snapshotReader(snapshot.files)),
      );
    }
    entries.push(...BUILTIN_INJECTORS);
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
  resolve(names: readonly string[], cwd?: string): Injector[] {
    if (names.length === 0) {
      return [];
    }
    const { injectors, broken } = this.available(cwd);
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
