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

/**
 * How to run each npm: this machine's npm, and npm 10, fetched once by npm itself (`npm exec`) and
 * then run from where it put it: each `npm exec` starts a second npm first (1.4 CPU-seconds).
 */
const NPM_ENV: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false' };

const NPMS: Record<string, () => string[]> = {
  'npm 11': () => ['npm'],
  'npm 10': () => {
    const found = spawnSync('npm', ['exec', '--yes', '--package=npm@10', '--', 'sh', '-c', 'command -v npm'], {
      env: NPM_ENV,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(found.status, `npm exec --package=npm@10 failed: ${found.stderr}`).toBe(0);
    return [found.stdout.trim()];
  },
};

function run(command: readonly string[], args: readonly string[], cwd: string): { status: number | null; output: string } {
  const [program, ...prefix] = command;
  const result = spawnSync(program!, [...prefix, ...args], { cwd, env: NPM_ENV, encoding: 'utf8', timeout: 300_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the shipped agent locks', () => {
  it.each(Object.keys(NPMS))(
    'all install with %s',
    (which) => {
      const npm = NPMS[which]!();
      expect(run(npm, ['--version'], process.cwd()).output.trim()).toMatch(which === 'npm 10' ? /^10\./ : /^11\./);
      const results = agents.map((agent) => {
        const work = tempDir(`lock-${agent}`);
        copyFileSync(path.join(locks, agent, 'manifest.json'), path.join(work, 'package.json'));
        copyFileSync(path.join(locks, agent, 'lock.json'), path.join(work, 'package-lock.json'));
        const { status, output } = run(npm, [...LOCKED_INSTALL, '--dry-run', '--ignore-scripts', '--loglevel=error'], work);
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
