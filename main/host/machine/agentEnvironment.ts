/**
 * The environment agents are found and started with. An app started from a desktop menu gets a
 * minimal PATH (a top complaint about a peer), so the person's login shell is asked for its
 * environment, and the usual version-manager shim folders (nvm, volta, asdf, mise, Homebrew,
 * npm's global prefix) are added where they exist.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../process/env.js';

const MARKER = '__BATON_ENV_START__';

/** Options for {@link agentEnvironment}. */
export type AgentEnvironmentOptions = {
  /** Ask the login shell (desktop launches); a terminal launch already has the person's PATH. */
  askLoginShell: boolean;
  timeoutMs?: number;
  home?: string;
};

/** Reads the login shell's environment; undefined when there is none or it does not answer in time. */
export function loginShellEnv(shell: string, timeoutMs: number): Promise<Env | undefined> {
  return new Promise((resolve) => {
    execFile(
      shell,
      ['-ilc', `printf '%s\\n' '${MARKER}'; env`],
      { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 },
      (error, stdout) => {
        const start = stdout.indexOf(MARKER);
        if (error || start < 0) {
          resolve(undefined);
          return;
        }
        const env: Record<string, string> = {};
        for (const line of stdout.slice(start + MARKER.length).split('\n')) {
          const equals = line.indexOf('=');
          if (equals > 0) {
            env[line.slice(0, equals)] = line.slice(equals + 1);
          }
        }
        resolve(env);
      },
    );
  });
}

/** Shim and bin folders of common Node version managers and package managers that exist here. */
export function shimFolders(home: string): string[] {
  const candidates = [
    path.join(home, '.volta', 'bin'),
    path.join(home, '.asdf', 'shims'),
    path.join(home, '.local', 'share', 'mise', 'shims'),
    path.join(home, '.npm-global', 'bin'),
    path.join(home, '.local', 'bin'),
    path.join(home, '.bun', 'bin'),
    '/opt/homebrew/bin',
    '/usr/local/bin',
  ];
  // nvm: every installed Node's bin, newest first.
  const nvmVersions = path.join(home, '.nvm', 'versions', 'node');
  if (existsSync(nvmVersions)) {
    const versions = readdirSync(nvmVersions).sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
    candidates.push(...versions.map((version) => path.join(nvmVersions, version, 'bin')));
  }
  if (process.platform === 'win32' && process.env.APPDATA) {
    candidates.push(path.join(process.env.APPDATA, 'npm'));
  }
  return candidates.filter((candidate) => existsSync(candidate));
}

/** The process environment, with the login shell's variables and PATH entries and the shim folders added. */
export async function agentEnvironment(base: Env, options: AgentEnvironmentOptions): Promise<Env> {
  const home = options.home ?? base.HOME ?? os.homedir();
  const shell = base.SHELL;
  const fromShell =
    options.askLoginShell && shell && process.platform !== 'win32' ? await loginShellEnv(shell, options.timeoutMs ?? 3_000) : undefined;
  const merged: Record<string, string> = { ...(fromShell ?? {}), ...base };
  const entries = [...(base.PATH ?? '').split(path.delimiter), ...(fromShell?.PATH ?? '').split(path.delimiter), ...shimFolders(home)];
  merged.PATH = [...new Set(entries.filter(Boolean))].join(path.delimiter);
  return merged;
}
