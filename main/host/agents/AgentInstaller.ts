/**
 * Managed installs, as editors do them: an npm-distributed agent is installed, at the version
 * this Baton pins, into Baton's own agents folder (`<data>/agents/<agent>`), never into the
 * global npm. An install or update is built in a staging folder and swapped in only when it
 * worked, so a failed update leaves the working copy as it was. The pinned packages install
 * following the lockfile Baton ships for them (`npm install` with that lock). Agents the person installed themselves are
 * never touched.
 */
import path from 'node:path';
import {
  AgentInstallFailedError,
  InvalidRequestError,
  PinnedVersionMissingError,
  UnsupportedInputError,
  UnverifiedDownloadError,
} from '../../../app/errors.js';
import { AgentConnection } from '../acp/AgentConnection.js';
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';
import { packageName } from '../adapters/builtinAdapter.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { existsOn, type Machine, type MachineProcess } from '../machine/Machine.js';
import { dataFileExists, readDataText } from '../store/dataFiles.js';
import { agentLock, AGENT_LOCKS_DIR } from './agentLocks.js';
import { DownloadError } from '../machine/downloadArchive.js';
import { installArchive } from './archives/installArchive.js';
import { lastMeaningfulLine, missingPackage, platformPart, unreachableRegistry } from './npmFailure.js';
import { npmEnvironment, pinOf } from './npmEnvironment.js';
import { NpmRuns, type Run } from './npmRuns.js';
import { atVersion } from './npmVersions.js';

/** The manifest Baton writes into an install folder: what was installed, and the executable to run (relative to the folder). */
const MANIFEST = 'baton-agent.json';

/** The largest package.json or lock an install reads back from its staging folder. */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** How long a new copy of a registry agent has to answer `initialize` before it is refused. */
const ANSWER_TIMEOUT_MS = 60_000;

/** An archive that could not be downloaded (unreachable, or not there): its install's failure, unless npm has the agent. */
class ArchiveUnavailable extends Error {
  constructor(
    readonly failure: AgentInstallFailedError,
    /** Why, as the download said it (`<url> could not be reached (…)`). */
    readonly why: string,
  ) {
    super(failure.message);
  }
}

/** What an install put in its folder, as its manifest records it. */
type Installed = { executable: string; version: string | undefined; packages?: readonly string[]; source?: string; sha256?: string };

/** One line of progress. */
export type InstallProgress = { agentId: string; action: 'install' | 'update' | 'remove'; text: string };

/** Installs, updates and removes agents in Baton's agents folder. */
/** npm's arguments for a pinned install that follows the lock Baton ships (see `agentLocks/`). */
export const LOCKED_INSTALL = ['install', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=http'] as const;

export { npmEnvironment };

export class AgentInstaller {
  private readonly busy = new Set<string>();
  /** Each install under way (Cancel ends it). */
  private readonly runs = new Map<string, Run>();
  /** npm, run on the machine. */
  private readonly npmRuns: NpmRuns;

  constructor(
    private readonly dataDir: string,
    private readonly env: Env,
    private readonly progress: (event: InstallProgress) => void,
    /** Replaces adapters' pinned packages (tests install local tarballs; a mirror could too). */
    private readonly packageOverrides: Readonly<Record<string, readonly string[]>> = {},
    /** Where the shipped lockfiles are (tests bring their own). */
    private readonly locksDir: string = AGENT_LOCKS_DIR,
    /** The machine agents are installed on, and npm runs on. */
    private readonly machine: Machine = new LocalMachine(env),
  ) {
    this.npmRuns = new NpmRuns(machine, env, dataDir);
  }

  /** The npm specs Baton installs for an adapter, if it can install it at all. */
  packages(adapter: AgentAdapter): readonly string[] | undefined {
    return this.packageOverrides[adapter.agentId] ?? adapter.npmPackages;
  }

  /** The folder whose `node_modules/.bin` holds the managed copy's commands. */
  binDir(adapter: AgentAdapter): string {
    return path.join(this.folder(adapter), 'node_modules', '.bin');
  }

  /** The version this Baton pins (from the first package spec), if it names one. */
  pinnedVersion(adapter: AgentAdapter): string | undefined {
    return pinOf(this.packages(adapter)?.[0]);
  }

  /** The executable of Baton's copy, as its install recorded it (absolute), if there is one. */
  installedExecutable(adapter: AgentAdapter): string | undefined {
    try {
      const { executable } = JSON.parse(readDataText(path.join(this.folder(adapter), MANIFEST))) as { executable?: unknown };
      const absolute = typeof executable === 'string' && executable !== '' ? path.join(this.folder(adapter), executable) : undefined;
      return absolute && dataFileExists(absolute) ? absolute : undefined;
    } catch {
      return undefined;
    }
  }

  /** The version installed in Baton's folder, if any. */
  installedVersion(adapter: AgentAdapter): string | undefined {
    const manifest = path.join(this.folder(adapter), MANIFEST);
    try {
      const { version } = JSON.parse(readDataText(manifest)) as { version?: unknown };
      return typeof version === 'string' ? version : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Installs, or updates to the version Baton pins (a registry agent: the registry's version);
   * resolves when the new copy is in place. An archive without a checksum needs `unverified: true`
   * (the person agreed). A registry agent's new copy must answer `initialize` before it replaces
   * the old one.
   */
  async install(adapter: AgentAdapter, options: { unverified?: boolean; version?: string } = {}): Promise<void> {
    const action = this.installedVersion(adapter) ? 'update' : 'install';
    const pinned = this.packages(adapter);
    // The version the person agreed to instead of the pinned one the npm registry does not have.
    const packages = options.version && pinned?.[0] ? [atVersion(pinned[0], options.version), ...pinned.slice(1)] : pinned;
    if (adapter.archive === undefined && (!packages || packages.length === 0)) {
      throw new UnsupportedInputError(
        adapter.displayName,
        'installing it',
        adapter.installHint ?? 'Baton does not know which npm package it comes in; install it yourself and put it on PATH',
      );
    }
    if (adapter.archive && adapter.archive.sha256 === undefined && options.unverified !== true) {
      throw new UnverifiedDownloadError(adapter.displayName, adapter.agentId, adapter.archive.url);
    }
    await this.exclusive(adapter, async () => {
      const folder = this.folder(adapter);
      const staging = `${folder}.staging`;
      await this.machine.remove(staging);
      await this.machine.mkdir(staging);
      const say = (text: string): void => this.progress({ agentId: adapter.agentId, action, text });
      const run = { group: undefined as MachineProcess | undefined, abort: new AbortController(), cancelled: false };
      this.runs.set(adapter.agentId, run);
      try {
        const installed = adapter.archive
          ? await this.fromArchive(adapter, adapter.archive, staging, say, action, run).catch(async (error: unknown) => {
              // An archive that cannot be had, where the entry's npm package runs the same way: that instead.
              if (!(error instanceof ArchiveUnavailable) || !packages?.length) {
                throw error instanceof ArchiveUnavailable ? error.failure : error;
              }
              say(`${error.why}. Installing ${packages.join(' ')} from npm instead.`);
              await this.machine.remove(staging);
              await this.machine.mkdir(staging);
              return this.fromNpm(adapter, packages, staging, say, action, run);
            })
          : await this.fromNpm(adapter, packages ?? [], staging, say, action, run);
        if (run.cancelled) {
          throw new AgentInstallFailedError(adapter.displayName, action, 'you cancelled it. Nothing was changed.');
        }
        if (adapter.source === 'registry') {
          say(`Checking that ${adapter.displayName} answers…`);
          await this.answers(adapter, path.join(staging, installed.executable), action);
        }
        await this.write(
          staging,
          MANIFEST,
          JSON.stringify({ agentId: adapter.agentId, ...installed, installedAt: new Date().toISOString() }, null, 2),
        );
        await this.swapIn(staging, folder);
        say(`${adapter.displayName} ${installed.version ?? ''} is ${action === 'update' ? 'updated' : 'installed'}.`.replace('  ', ' '));
      } catch (error) {
        // Whatever the staging folder's removal meets, the install's own failure is what is said.
        await this.machine.remove(staging).catch(() => undefined);
        if (run.cancelled && !(error instanceof AgentInstallFailedError)) {
          throw new AgentInstallFailedError(adapter.displayName, action, 'you cancelled it. Nothing was changed.');
        }
        throw error;
      } finally {
        this.runs.delete(adapter.agentId);
      }
    });
  }

  /** An npm install into `staging`: following the shipped lock for pinned packages, else resolving afresh; finds the agent's command. */
  private async fromNpm(
    adapter: AgentAdapter,
    packages: readonly string[],
    staging: string,
    say: (text: string) => void,
    action: 'install' | 'update',
    run: Run,
  ): Promise<Installed> {
    const npm = await this.machine.which('npm', this.env.PATH);
    if (!npm) {
      throw new AgentInstallFailedError(
        adapter.displayName,
        action,
        'npm was not found on PATH. Install Node.js (which comes with npm), or install the agent yourself.',
      );
    }
    // The pinned packages come with the lock Baton was tested with, which npm follows (every
    // package's version and integrity). Not `npm ci`: npm 11 writes locks that leave out the
    // optional platform parts the npm registry never published (Qwen's and OpenCode's clipboard
    // helpers), and its own `npm ci` then refuses them as out of sync; `npm install` takes them.
    const locked = agentLock(adapter.agentId, packages, this.locksDir);
    if (locked) {
      await this.write(staging, 'package.json', locked.manifest);
      await this.write(staging, 'package-lock.json', locked.lock);
    } else {
      await this.write(
        staging,
        'package.json',
        JSON.stringify({ name: `baton-agent-${path.basename(this.folder(adapter))}`, private: true }, null, 2),
      );
    }
    const npmArgs = locked
      ? [...LOCKED_INSTALL]
      : ['install', '--no-audit', '--no-fund', '--omit=dev', '--prefer-offline', '--loglevel=http', ...packages];
    say(
      `${action === 'update' ? 'Updating' : 'Installing'} ${adapter.displayName}: npm install ${locked ? `(the lock Baton ships for ${packages.join(' ')})` : packages.join(' ')}`,
    );
    const output = await this.npmRuns.run(npm, npmArgs, staging, say, run);
    if (run.cancelled) {
      return { executable: '', version: undefined, packages };
    }
    const main = await this.mainPackage(staging, packages[0]!);
    const unpublished = (part: string): string =>
      `the npm registry${this.env.npm_config_registry ? ` (${this.env.npm_config_registry})` : ''} has no ${part}, the part of ${main} for this platform (${process.platform}-${process.arch}). Choose a version of ${adapter.displayName} that has it, or install it yourself.`;
    if (output.exit !== 0) {
      const unreachable = unreachableRegistry(output.tail, this.env);
      const missing = missingPackage(output.tail);
      const newer =
        missing !== undefined && missing === packages[0] && adapter.source === 'registry'
          ? await this.npmRuns.newerThanPinned(npm, missing)
          : [];
      if (missing && newer.length > 0) {
        throw new PinnedVersionMissingError(adapter.displayName, adapter.agentId, missing, newer);
      }
      const part = unreachable || missing ? undefined : await this.npmRuns.unpublishedPart(npm, packages[0]!, run);
      const reason =
        unreachable ??
        (missing
          ? `the npm registry${this.env.npm_config_registry ? ` (${this.env.npm_config_registry})` : ''} has no ${missing}, which it needs.`
          : part
            ? unpublished(part)
            : `npm failed: ${lastMeaningfulLine(output.tail) ?? `it exited with ${output.exit}`}.`);
      throw new AgentInstallFailedError(adapter.displayName, action, reason, output.tail);
    }
    const part = await this.missingPlatformPart(staging, main);
    if (part) {
      throw new AgentInstallFailedError(adapter.displayName, action, unpublished(part), output.tail);
    }
    const command = await this.commandIn(staging, adapter, main);
    if (!command) {
      throw new AgentInstallFailedError(
        adapter.displayName,
        action,
        `the package installed, but it has no "${adapter.command}" command.`,
        output.tail,
      );
    }
    return { executable: path.relative(staging, command), version: await this.versionIn(staging, packages[0]!), packages };
  }

  /** An archive install into `staging`. */
  private async fromArchive(
    adapter: AgentAdapter,
    archive: NonNullable<AgentAdapter['archive']>,
    staging: string,
    say: (text: string) => void,
    action: 'install' | 'update',
    run: Run,
  ): Promise<Installed> {
    try {
      const installed = await installArchive(archive, staging, { machine: this.machine, signal: run.abort.signal, say });
      return { executable: installed.executable, version: adapter.registry?.version, source: archive.url, sha256: installed.sha256 };
    } catch (error) {
      if (run.cancelled) {
        throw new AgentInstallFailedError(adapter.displayName, action, 'you cancelled it. Nothing was changed.');
      }
      const failure = new AgentInstallFailedError(adapter.displayName, action, `${(error as Error).message}.`.replace(/\.\.$/, '.'));
      throw error instanceof DownloadError ? new ArchiveUnavailable(failure, error.message) : failure;
    }
  }

  /** The agent's command in a staged npm install: its adapter's command, else the package's own (its `bin`). */
  private async commandIn(staging: string, adapter: AgentAdapter, main: string): Promise<string | undefined> {
    const bin = path.join(staging, 'node_modules', '.bin');
    const named = await this.machine.which(adapter.command, bin);
    if (named || adapter.source !== 'registry') {
      return named;
    }
    try {
      const manifest = await this.readJson<{ bin?: string | Record<string, string> }>(
        path.join(staging, 'node_modules', main, 'package.json'),
      );
      const names = typeof manifest.bin === 'string' ? [main.split('/').at(-1)!] : Object.keys(manifest.bin ?? {});
      const chosen = names.find((name) => name === main.split('/').at(-1)) ?? names[0];
      return chosen ? await this.machine.which(chosen, bin) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The name of the package a spec installed (a tarball's name is read from what npm recorded). */
  private async mainPackage(staging: string, spec: string): Promise<string> {
    const name = packageName(spec);
    try {
      const dependencies = Object.keys(
        (await this.readJson<{ dependencies?: Record<string, string> }>(path.join(staging, 'package.json'))).dependencies ?? {},
      );
      return dependencies.includes(name) ? name : (dependencies[0] ?? name);
    } catch {
      return name;
    }
  }

  /** The platform part of a package built per platform, when npm installed the package but not that part. */
  private async missingPlatformPart(staging: string, main: string): Promise<string | undefined> {
    try {
      const manifest = await this.readJson<{ optionalDependencies?: Record<string, string> }>(
        path.join(staging, 'node_modules', main, 'package.json'),
      );
      const part = platformPart(manifest.optionalDependencies ?? {}, process.platform, process.arch);
      const name = part ? packageName(part) : undefined;
      return part &&
        name &&
        !(await existsOn(this.machine, path.join(staging, 'node_modules', name, 'package.json'))) &&
        !(await existsOn(this.machine, path.join(staging, 'node_modules', main, 'node_modules', name, 'package.json')))
        ? part
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** Starts the staged copy and completes `initialize`; a copy that does not answer never replaces one that does. */
  private async answers(adapter: AgentAdapter, executable: string, action: 'install' | 'update'): Promise<void> {
    let connection: AgentConnection | undefined;
    try {
      connection = await AgentConnection.start({
        agentName: adapter.displayName,
        machine: this.machine,
        launch: { command: executable, args: adapter.args, env: { ...this.env, ...adapter.env }, cwd: path.dirname(executable) },
        handlers: { session: () => undefined },
        initializeTimeoutMs: ANSWER_TIMEOUT_MS,
      });
    } catch (error) {
      throw new AgentInstallFailedError(
        adapter.displayName,
        action,
        `the new copy did not answer: ${(error as Error).message}${action === 'update' ? ' The copy you had is kept.' : ''}`,
      );
    } finally {
      await connection?.dispose().catch(() => undefined);
    }
  }

  /** Removes the managed copy (only Baton's own folder). */
  async remove(adapter: AgentAdapter): Promise<void> {
    await this.exclusive(adapter, async () => {
      const folder = this.folder(adapter);
      if (!(await existsOn(this.machine, folder))) {
        throw new InvalidRequestError(`${adapter.displayName} was not installed by Baton; remove it the way you installed it.`);
      }
      try {
        await this.machine.remove(folder);
      } catch (error) {
        throw new AgentInstallFailedError(adapter.displayName, 'remove', (error as Error).message);
      }
      this.progress({ agentId: adapter.agentId, action: 'remove', text: `${adapter.displayName} is removed from Baton's agents folder.` });
    });
  }

  private async exclusive(adapter: AgentAdapter, work: () => Promise<void>): Promise<void> {
    if (this.busy.has(adapter.agentId)) {
      throw new InvalidRequestError(`${adapter.displayName} is already being installed or removed; wait for it to finish.`);
    }
    this.busy.add(adapter.agentId);
    try {
      await work();
    } finally {
      this.busy.delete(adapter.agentId);
    }
  }

  private folder(adapter: AgentAdapter): string {
    return path.join(this.dataDir, 'agents', adapter.agentId.replace(/[^\w.-]+/g, '_'));
  }

  /** The installed version of the package a spec names (a tarball spec: read from what was installed). */
  private async versionIn(root: string, spec: string): Promise<string | undefined> {
    try {
      const manifest = await this.readJson<{ dependencies?: Record<string, string> }>(path.join(root, 'package.json'));
      const name =
        Object.keys(manifest.dependencies ?? {}).find((dependency) => spec === dependency || spec.startsWith(`${dependency}@`)) ??
        Object.keys(manifest.dependencies ?? {})[0];
      if (!name) {
        return undefined;
      }
      const { version } = await this.readJson<{ version?: unknown }>(path.join(root, 'node_modules', name, 'package.json'));
      return typeof version === 'string' ? version : undefined;
    } catch {
      return undefined;
    }
  }

  /** Puts the staging folder in place of the current one; the old copy goes only once the new one is in. */
  private async swapIn(staging: string, folder: string): Promise<void> {
    const old = `${folder}.old`;
    await this.machine.remove(old);
    if (await existsOn(this.machine, folder)) {
      await this.machine.rename(folder, old);
    }
    try {
      await this.machine.rename(staging, folder);
    } catch (error) {
      if (await existsOn(this.machine, old)) {
        await this.machine.rename(old, folder);
      }
      throw error;
    }
    await this.machine.remove(old);
  }

  /** Writes a file of an install on its machine. */
  private async write(folder: string, name: string, text: string): Promise<void> {
    await this.machine.writeConfined(folder, name, Buffer.from(text));
  }

  /** A package.json (or Baton's record) of an install, read on its machine. */
  private async readJson<T>(file: string): Promise<T> {
    const { data, tooLarge } = await this.machine.readFile(file, MAX_MANIFEST_BYTES);
    if (tooLarge) {
      throw new Error(`${file} is larger than ${MAX_MANIFEST_BYTES} bytes`);
    }
    return JSON.parse(data.toString('utf8')) as T;
  }

  /** Cancels an install under way: npm (or the download) is ended, and nothing is swapped in. False when none runs. */
  cancel(agentId: string): boolean {
    const run = this.runs.get(agentId);
    if (!run) {
      return false;
    }
    run.cancelled = true;
    run.abort.abort();
    void run.group?.dispose();
    return true;
  }
}
