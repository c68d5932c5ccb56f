/**
 * A second start (`npm run bench -- start`): the build current and the data folder made by a first
 * start, from the command to the line with the page's address, as a person's `npm run web` goes.
 * The baseline is the host's own start (`node dist/main/web/cli.js`: no npm, no build check).
 * Against it: `node scripts/web.mjs` (the build check in the same process, then the host) and
 * `npm run web` (the same, started by npm). Beside them, what each part costs on its own: npm's own
 * start-up (`npm run` of a script that does nothing worth timing) and the build check (the digest
 * of the build's inputs, in this process). Five rounds each, the three ways in turn, idle and busy.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { atLoad, LOADS, median, report } from './util.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const ROUNDS = 5;
/** The goal of each way against the host's own start (issue 48). */
const GOAL = 1.3;

type Way = { name: string; command: string; args: string[] };

const HOST: Way = {
  name: 'the host alone: node dist/main/web/cli.js (baseline)',
  command: process.execPath,
  args: ['dist/main/web/cli.js'],
};
const WAYS: Way[] = [
  HOST,
  { name: `node scripts/web.mjs (goal <= ${GOAL}x)`, command: process.execPath, args: ['scripts/web.mjs'] },
  { name: `npm run web (goal <= ${GOAL}x)`, command: 'npm', args: ['run', 'web', '--'] },
];

/** Whether any process of the group led by `pid` is still there. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds from the start of `command` to the first line of its output that matches `until`, or to its end. */
async function timed(command: string, args: string[], until: RegExp | undefined): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let error = '';
  child.stderr.on('data', (chunk: Buffer) => (error += chunk.toString()));
  const elapsed = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (until?.test(output)) {
        resolve(performance.now() - started);
      }
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      until === undefined && code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${command} ${args.join(' ')} ended (${code}) before it printed ${String(until)}:\n${output}${error}`)),
    );
  });
  // Ended as Ctrl+C ends it, and waited for: the next start finds its port and data folder free.
  if (until !== undefined && child.pid !== undefined) {
    process.kill(-child.pid, 'SIGTERM');
    while (groupAlive(child.pid)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  return elapsed;
}

function ratios(values: number[], baseline: number[]): string {
  return `(each round: ${values.map((ms, round) => (ms / baseline[round]!).toFixed(2)).join(', ')})`;
}

export async function startBenchmark(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-bench-start-'));
  const address = /Baton is running at http/;
  const start = (way: Way): Promise<number> => timed(way.command, [...way.args, '--no-open', '--data-dir', dataDir], address);
  const { buildInputsDigest } = (await import(pathToFileURL(path.join(root, 'scripts', 'buildInputs.mjs')).href)) as {
    buildInputsDigest: (root: string) => string;
  };
  try {
    // The first start (the data folder made) and a build check that would build are not what is timed.
    await start(WAYS[1]!);
    for (const load of LOADS) {
      const times = new Map<Way, number[]>(WAYS.map((way) => [way, []]));
      const npm: number[] = [];
      const check: number[] = [];
      await atLoad(load, async () => {
        for (let round = 0; round < ROUNDS; round += 1) {
          for (let index = 0; index < WAYS.length; index += 1) {
            const way = WAYS[(round + index) % WAYS.length]!;
            times.get(way)!.push(await start(way));
          }
          npm.push(await timed('npm', ['run', '--silent', 'env'], undefined));
          const before = performance.now();
          buildInputsDigest(root);
          check.push(performance.now() - before);
        }
      });
      console.log(`\nstart: a second start to the page's address, the build current; ${load}, median of ${ROUNDS} rounds`);
      const baseline = times.get(HOST)!;
      report(HOST.name, `${median(baseline).toFixed(0)} ms`);
      for (const way of WAYS.slice(1)) {
        const values = times.get(way)!;
        report(
          way.name,
          `${median(values).toFixed(0)} ms  ratio ${(median(values) / median(baseline)).toFixed(2)}x  ${ratios(values, baseline)}`,
        );
      }
      report(
        "npm's own start-up: npm run of a script that only prints",
        `${median(npm).toFixed(0)} ms  ratio ${(median(npm) / median(baseline)).toFixed(2)}x`,
      );
      report(
        'the build check: the digest of the build inputs, in process',
        `${median(check).toFixed(1)} ms  ratio ${(median(check) / median(baseline)).toFixed(2)}x`,
      );
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
