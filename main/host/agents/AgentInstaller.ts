/**
 * Managed installs, as editors do them: an npm-distributed agent is installed, at the version
 * this Baton pins, into Baton's own agents folder (`<data>/agents/<agent>`), never into the
 * global npm. An install or update is built in a staging folder and swapped in only when it
 * worked, so a failed update leaves the working copy as it was. The pinned packages install
 * from the lockfile Baton ships for them (`npm ci`). Agents the person installed themselves are
 * never touched.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AgentInstallFailedError, InvalidRequestError, UnsupportedInputError } from '../../../app/errors.js';
import { findExecutable } from '../process/findExecutable.js';
import { ProcessGroup } from '../process/ProcessGroup.js';
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';
import { agentLock, AGENT_LOCKS_DIR } from './agentLocks.js';
import { packageName } from '../adapters/builtinAdapter.js';

/** One line of progress. */
export type InstallProgress = { agentId: string; action: 'install' | 'update' | 'remove'; text: string };

/** Lines of npm's output kept for an error report. */
const OUTPUT_LINES_IN_ERRORS = 20;

/** Installs, updates and removes agents in Baton's agents folder. */
export class AgentInstaller {
  private readonly busy = new Set<string>();
  /** The npm run of each install under way (Cancel ends it). */
  private readonly npmRuns = new Map<string, { group: ProcessGroup; cancelled: boolean }>();

  constructor(
    private readonly dataDir: string,
    private readonly env: Env,
    private readonly progress: (event: InstallProgress) => void,
    /** Replaces adapters' pinned packages (tests install local tarballs; a mirror could too). */
    private readonly packageOverrides: Readonly<Record<string, readonly string[]>> = {},
    /** Where the shipped lockfiles are (tests bring their own). */
    private readonly locksDir: string = AGENT_LOCKS_DIR,
  ) {}

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
    const spec = this.packages(adapter)?.[0];
    if (!spec) {
      return undefined;
    }
    const name = packageName(spec);
    return name !== spec ? spec.slice(name.length + 1) : undefined;
  }

  /** The version installed in Baton's folder, if any. */
  installedVersion(adapter: AgentAdapter): string | undefined {
    const manifest = path.join(this.folder(adapter), 'baton-agent.json');
    try {
      const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
      return typeof version === 'string' ? version : undefined;
    } catch {
      return undefined;
    }
  }

  /** Installs, or updates to the pinned version; resolves when the new copy is in place. */
  async install(adapter: AgentAdapter): Promise<void> {
    const action = this.installedVersion(adapter) ? 'update' : 'install';
    const packages = this.packages(adapter);
    if (!packages || packages.length === 0) {
      throw new UnsupportedInputError(adapter.displayName, 'installing it', 'Baton does not know which npm package it comes in; install it yourself and put it on PATH');
    }
    await this.exclusive(adapter, async () => {
      const npm = findExecutable('npm', this.env);
      if (!npm) {
        throw new AgentInstallFailedError(adapter.displayName, action, 'npm was not found on PATH. Install Node.js (which comes with npm), or install the agent yourself.');
      }
      const folder = this.folder(adapter);
      const staging = `${folder}.staging`;
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(staging, { recursive: true });
      // The pinned packages come with the lock Baton was tested with: npm ci installs exactly that tree.
      const locked = agentLock(adapter.agentId, packages, this.locksDir);
      if (locked) {
        writeFileSync(path.join(staging, 'package.json'), locked.manifest);
        writeFileSync(path.join(staging, 'package-lock.json'), locked.lock);
      } else {
        writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: `baton-agent-${path.basename(folder)}`, private: true }, null, 2));
      }
      const say = (text: string): void => this.progress({ agentId: adapter.agentId, action, text });
      const npmArgs = locked ? ['ci', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=http'] : ['install', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=http', ...packages];
      say(`${action === 'update' ? 'Updating' : 'Installing'} ${adapter.displayName}: npm ${locked ? `ci (the lock Baton ships for ${packages.join(' ')})` : `install ${packages.join(' ')}`}`);
      try {
        const output = await this.runNpm(adapter.agentId, npm, npmArgs, staging, say);
        if (output.cancelled) {
          throw new AgentInstallFailedError(adapter.displayName, action, 'you cancelled it. Nothing was changed.');
        }
        if (output.exit !== 0) {
          throw new AgentInstallFailedError(adapter.displayName, action, unreachableRegistry(output.tail, this.env) ?? `npm exited with ${output.exit}.`, output.tail);
        }
        const command = findExecutable(adapter.command, { PATH: path.join(staging, 'node_modules', '.bin'), PATHEXT: this.env.PATHEXT ?? '' });
        if (!command) {
          throw new AgentInstallFailedError(adapter.displayName, action, `the package installed, but it has no "${adapter.command}" command.`, output.tail);
        }
        const version = this.versionIn(staging, packages[0]!);
        writeFileSync(path.join(staging, 'baton-agent.json'), JSON.stringify({ agentId: adapter.agentId, packages, version, installedAt: new Date().toISOString() }, null, 2));
        this.swapIn(staging, folder);
        say(`${adapter.displayName} ${version ?? ''} is ${action === 'update' ? 'updated' : 'installed'}.`.replace('  ', ' '));
      } catch (error) {
        rmSync(staging, { recursive: true, force: true });
        throw error;
      }
    });
  }

  /** Removes the managed copy (only Baton's own folder). */
  async remove(adapter: AgentAdapter): Promise<void> {
    await this.exclusive(adapter, () => {
      const folder = this.folder(adapter);
      if (!existsSync(folder)) {
        throw new InvalidRequestError(`${adapter.displayName} was not installed by Baton; remove it the way you installed it.`);
      }
      try {
        rmSync(folder, { recursive: true, force: true });
      } catch (error) {
        throw new AgentInstallFailedError(adapter.displayName, 'remove', (error as Error).message);
      }
      this.progress({ agentId: adapter.agentId, action: 'remove', text: `${adapter.displayName} is removed from Baton's agents folder.` });
      return Promise.resolve();
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
  private versionIn(root: string, spec: string): string | undefined {
    try {
      const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      const name = Object.keys(manifest.dependencies ?? {}).find((dependency) => spec === dependency || spec.startsWith(`${dependency}@`)) ?? Object.keys(manifest.dependencies ?? {})[0];
      if (!name) {
        return undefined;
      }
      const { version } = JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown };
      return typeof version === 'string' ? version : undefined;
    } catch {
      return undefined;
    }
  }

  /** Puts the staging folder in place of the current one; the old copy goes only once the new one is in. */
  private swapIn(staging: string, folder: string): void {
    const old = `${folder}.old`;
    rmSync(old, { recursive: true, force: true });
    if (existsSync(folder)) {
      renameSync(folder, old);
    }
    try {
      renameSync(staging, folder);
    } catch (error) {
      if (existsSync(old)) {
        renameSync(old, folder);
      }
      throw error;
    }
    rmSync(old, { recursive: true, force: true });
  }

  /** Runs npm, passing each output line on; resolves with its exit code and last lines. */
  /** Cancels an install under way: npm and everything it started are ended, and nothing is swapped in. False when none runs. */
  cancel(agentId: string): boolean {
    const run = this.npmRuns.get(agentId);
    if (!run) {
      return false;
    }
    run.cancelled = true;
    void run.group.dispose();
    return true;
  }

  private async runNpm(agentId: string, npm: string, args: string[], cwd: string, line: (text: string) => void): Promise<{ exit: number | null; tail: string; cancelled: boolean }> {
    const child = new ProcessGroup({ command: npm, args, cwd, env: { ...npmEnvironment(this.env), npm_config_update_notifier: 'false' } });
    const run = { group: child, cancelled: false };
    this.npmRuns.set(agentId, run);
    try {
      return await this.readNpm(child, line, run);
    } finally {
      this.npmRuns.delete(agentId);
    }
  }

  private async readNpm(child: ProcessGroup, line: (text: string) => void, run: { cancelled: boolean }): Promise<{ exit: number | null; tail: string; cancelled: boolean }> {
    try {
      await child.spawned();
    } catch (error) {
      return { exit: null, tail: (error as Error).message, cancelled: run.cancelled };
    }
    child.child.stdin.end();
    const recent: string[] = [];
    let pending = '';
    const onData = (chunk: Buffer): void => {
      const lines = (pending + chunk.toString('utf8')).split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const text of lines.filter((candidate) => candidate.trim() !== '')) {
        recent.push(text);
        if (recent.length > OUTPUT_LINES_IN_ERRORS) {
          recent.shift();
        }
        line(text);
      }
    };
    child.child.stdout.on('data', onData);
    child.child.stderr.on('data', onData);
    const { code } = await child.exited;
    if (pending.trim()) {
      recent.push(pending);
      line(pending);
    }
    return { exit: code, tail: recent.join('\n'), cancelled: run.cancelled };
  }
}

/** Names npm (and the install scripts it runs) may see: where things are, the locale, npm's own settings, the proxy and certificates. */
const NPM_NAMES = /^(PATH|PATHEXT|HOME|USERPROFILE|APPDATA|LOCALAPPDATA|SYSTEMROOT|SYSTEMDRIVE|COMSPEC|WINDIR|TEMP|TMP|TMPDIR|USER|USERNAME|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z]+|TZ|XDG_(CONFIG|CACHE|DATA|STATE)_HOME|(HTTPS?|NO|ALL)_PROXY|NODE_EXTRA_CA_CERTS|SSL_CERT_(FILE|DIR)|NPM_CONFIG_.+|BATON_TEST_RUN)$/i;

/**
 * The environment npm runs with: only what it needs, never the agents' keys or anything else of
 * Baton's own environment (a package's install script sees everything npm is given).
 */
export function npmEnvironment(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([name]) => NPM_NAMES.test(name)));
}

/** npm's codes for a registry it could not reach (no network, a name that does not resolve, no answer). */
const NETWORK_CODES = /\b(EAI_AGAIN|ENOTFOUND|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENETUNREACH|EHOSTUNREACH)\b/;

/** Says so plainly when npm failed because it could not reach its registry, naming the setting for a mirror. */
export function unreachableRegistry(tail: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const code = NETWORK_CODES.exec(tail)?.[1];
  if (!code) {
    return undefined;
  }
  const registry = env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY ?? 'https://registry.npmjs.org/';
  return `npm cannot reach the npm registry (${registry}: ${code}). Check the network, or point npm at a mirror you can reach (the npm_config_registry setting, or "registry" in your .npmrc).`;
}
