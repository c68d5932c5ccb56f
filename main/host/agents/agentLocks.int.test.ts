/**
 * Every lock Baton ships for a built-in agent installs with the npm versions Baton supports (10
 * and 11), the way the installer runs npm (`npm install` following the lock), checked as a dry
 * run against the npm registry: the tree resolves from the lock, with nothing out of sync.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { LOCKED_INSTALL } from './AgentInstaller.js';

const locks = path.join(path.dirname(fileURLToPath(import.meta.url)), 'agentLocks');
const agents = readdirSync(locks).sort();

/** How to run each npm: this machine's npm, and npm 10 fetched by npm itself. */
const NPMS: Record<string, string[]> = { 'npm 11': ['npm'], 'npm 10': ['npm', 'exec', '--yes', '--package=npm@10', '--', 'npm'] };

function npm(which: string, args: readonly string[], cwd: string): { status: number | null; output: string; version: string } {
  const [command, ...prefix] = NPMS[which]!;
  const env = { ...process.env, npm_config_update_notifier: 'false' };
  const version = spawnSync(command!, [...prefix, '--version'], { cwd, env, encoding: 'utf8', timeout: 180_000 }).stdout.trim();
  const run = spawnSync(command!, [...prefix, ...args], { cwd, env, encoding: 'utf8', timeout: 300_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}`, version };
}

describe('the shipped agent locks', () => {
  it.each(Object.keys(NPMS))(
    'all install with %s',
    (which) => {
      const results = agents.map((agent) => {
        const work = tempDir(`lock-${agent}`);
        copyFileSync(path.join(locks, agent, 'manifest.json'), path.join(work, 'package.json'));
        copyFileSync(path.join(locks, agent, 'lock.json'), path.join(work, 'package-lock.json'));
        const { status, output, version } = npm(which, [...LOCKED_INSTALL, '--dry-run', '--ignore-scripts', '--loglevel=error'], work);
        expect(version).toMatch(which === 'npm 10' ? /^10\./ : /^11\./);
        return {
          agent,
          ok: status === 0,
          why:
            status === 0
              ? ''
              : output
                  .split('\n')
                  .filter((line) => /error/i.test(line))
                  .slice(0, 3)
                  .join(' | '),
        };
      });
      expect(results.filter((result) => !result.ok)).toEqual([]);
      expect(results.map((result) => result.agent)).toEqual(['claude', 'codex', 'gemini', 'opencode', 'pi', 'qwen']);
    },
    600_000,
  );
});
