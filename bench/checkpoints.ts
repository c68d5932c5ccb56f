/**
 * Checkpoints of a working folder against the obvious alternative, a shadow git directory
 * (`git add -A && git commit` with `--git-dir` outside the folder), on a seeded folder of 5,000
 * files (about 100 MB: most small, some of a megabyte, some ignored by `.gitignore`): the first
 * checkpoint, then one after 10 files changed, the way Baton takes them while a session is live
 * (the folder watched, only the reported paths looked at) and, for reference, by walking the whole
 * folder (what a checkpoint does when nothing was watched). Then 10 files written by another
 * process (an agent) right before the checkpoint, so the watcher's events arrive as in a turn.
 * Both take the same folder, in the same run. Then a rewind of 200 changed files (150 changed,
 * 25 added, 25 removed) back to the first checkpoint: Baton's (look at what changed, compare, put
 * the files back) against `git read-tree -u --reset` of the shadow commit, and what the checkpoints
 * added to the data folder.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CheckpointStore, diffManifests, type Checkpoint } from '../main/host/checkpoints/CheckpointStore.js';
import { atLoad, LOADS, median, random, report, settle } from './util.js';

const SMALL_FILES = 4_900;
const LARGE_FILES = 50;
const IGNORED_FILES = 50;
/** Five: the watched checkpoint's and the rewind's goals hold in each of five runs (issue 48). */
const ROUNDS = 5;
/** Incremental checkpoints the data folder's growth is averaged over. */
const GROWTH_SAMPLES = 20;

const WORDS = [
  'const',
  'value',
  'return',
  'function',
  'import',
  'export',
  'the',
  'turn',
  'agent',
  'session',
  'folder',
  'file',
  'change',
  'checkpoint',
  'baton',
  'await',
  'string',
  'number',
];

/** Seeds the folder: deterministic text files, a few large ones, and ignored build output. */
export function seed(folder: string): void {
  const next = random(21);
  const text = (bytes: number): string => {
    const parts: string[] = [];
    let length = 0;
    while (length < bytes) {
      const word = WORDS[Math.floor(next() * WORDS.length)]!;
      parts.push(word);
      length += word.length + 1;
      if (next() < 0.1) {
        parts.push(`${Math.floor(next() * 1e9)}\n`);
      }
    }
    return parts.join(' ');
  };
  writeFileSync(path.join(folder, '.gitignore'), 'build/\n');
  for (let index = 0; index < SMALL_FILES; index += 1) {
    const dir = path.join(folder, 'src', `m${index % 70}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${index}.ts`), text(500 + Math.floor(next() * 18_000)));
  }
  mkdirSync(path.join(folder, 'assets'), { recursive: true });
  for (let index = 0; index < LARGE_FILES; index += 1) {
    writeFileSync(path.join(folder, 'assets', `large${index}.dat`), text(1_000_000));
  }
  mkdirSync(path.join(folder, 'build'), { recursive: true });
  for (let index = 0; index < IGNORED_FILES; index += 1) {
    writeFileSync(path.join(folder, 'build', `out${index}.js`), text(20_000));
  }
}

/** Changes ten files. */
export function touchTen(folder: string, round: number): void {
  for (let index = 0; index < 10; index += 1) {
    const file = index * 400;
    writeFileSync(path.join(folder, 'src', `m${file % 70}`, `f${file}.ts`), `changed in round ${round}, file ${index}\n`);
  }
}

const git = (gitDir: string, folder: string, ...args: string[]): void => {
  execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${folder}`, ...args], {
    stdio: 'ignore',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@example.com',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@example.com',
    },
  });
};

/** Changes 200 files: 150 rewritten, 25 added, 25 removed. */
export function change200(folder: string, round: number): void {
  for (let index = 0; index < 150; index += 1) {
    const file = index * 30;
    writeFileSync(path.join(folder, 'src', `m${file % 70}`, `f${file}.ts`), `rewritten in round ${round}, file ${index}\n`);
  }
  for (let index = 0; index < 25; index += 1) {
    writeFileSync(path.join(folder, 'src', `added${index}.ts`), `added in round ${round}\n`);
    const file = index * 30 + 15;
    rmSync(path.join(folder, 'src', `m${file % 70}`, `f${file}.ts`));
  }
}

/** Another process (an agent) writes ten files, a few milliseconds apart, and ends. */
async function agentWritesTen(folder: string, round: number): Promise<void> {
  const script = `
    const { writeFileSync } = require('node:fs');
    const path = require('node:path');
    let index = 0;
    const next = () => {
      const file = 7 + index * 400;
      writeFileSync(path.join(${JSON.stringify(folder)}, 'src', 'm' + (file % 70), 'f' + file + '.ts'), 'written by the agent, round ${round}, file ' + index + '\\n');
      index += 1;
      if (index < 10) setTimeout(next, 3);
    };
    next();
  `;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the writer ended with ${String(code)}`))));
  });
}

/** A folder seeded, its shadow git directory, and a store watching it (as while a session is live). */
type Bench = { scratch: string; folder: string; gitDir: string; store: CheckpointStore; walker: CheckpointStore; close: () => void };

function prepare(prefix: string): Bench {
  const scratch = mkdtempSync(path.join(os.tmpdir(), prefix));
  const folder = path.join(scratch, 'work');
  mkdirSync(folder);
  seed(folder);
  execFileSync('sync');
  const gitDir = path.join(scratch, 'shadow.git');
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  const dataDir = path.join(scratch, 'data');
  mkdirSync(dataDir);
  const walkDir = path.join(scratch, 'data-walk');
  mkdirSync(walkDir);
  const store = CheckpointStore.open(dataDir);
  const walker = CheckpointStore.open(walkDir, { watch: false });
  const unwatch = store.watch(folder);
  return {
    scratch,
    folder,
    gitDir,
    store,
    walker,
    close: () => {
      unwatch();
      store.close();
      walker.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Rewind 200 changed files back to a checkpoint, Baton against the shadow git, alternating which goes first. */
async function rewindRound(round: number, timings: { git: number[]; baton: number[]; growth: number[] }): Promise<void> {
  const bench = prepare('baton-bench-rewind-');
  try {
    const { folder, gitDir, store } = bench;
    const revParse = (): string => execFileSync('git', [`--git-dir=${gitDir}`, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    git(gitDir, folder, 'add', '-A');
    git(gitDir, folder, 'commit', '-q', '-m', 'before');
    const gitBefore = revParse();
    const before = await store.take(folder);
    change200(folder, round);
    git(gitDir, folder, 'add', '-A');
    git(gitDir, folder, 'commit', '-q', '-m', 'after');
    const gitAfter = revParse();
    const grownFrom = store.size();
    await store.take(folder);
    timings.growth.push(store.size() - grownFrom);
    settle();
    execFileSync('sync');
    const runGit = (): void => {
      const started = performance.now();
      git(gitDir, folder, 'read-tree', '-u', '--reset', gitBefore);
      timings.git.push(performance.now() - started);
      git(gitDir, folder, 'read-tree', '-u', '--reset', gitAfter);
    };
    const runBaton = async (): Promise<void> => {
      const started = performance.now();
      const now = await store.look(folder);
      const target = store.manifest(before.checkpointId);
      const changes = diffManifests(now, target);
      const failed = await store.restore(
        folder,
        changes.map((change) => ({ path: change.path, entry: target.get(change.path) })),
      );
      timings.baton.push(performance.now() - started);
      if (changes.length !== 200 || failed.length > 0) {
        throw new Error(`the rewind put back ${changes.length} files (${failed.length} failed), not 200`);
      }
      git(gitDir, folder, 'read-tree', '-u', '--reset', gitAfter);
    };
    if (round % 2 === 0) {
      runGit();
      await runBaton();
    } else {
      await runBaton();
      runGit();
    }
  } finally {
    bench.close();
  }
}

/** The timings of one run of the benchmark. */
type Timings = Record<'firstGit' | 'firstBaton' | 'nextGit' | 'nextBaton' | 'nextWalk' | 'gitStatus' | 'agentBaton' | 'growth', number[]>;

/** One round: the first checkpoint, then one after ten files changed, then one right after an agent wrote ten. */
async function checkpointRound(round: number, timings: Timings): Promise<number> {
  const bench = prepare('baton-bench-checkpoints-');
  try {
    const { folder, gitDir, store, walker } = bench;
    // Alternating which goes first, so neither always finds the folder in the page cache.
    const runGit = (into: number[]): void => {
      const started = performance.now();
      git(gitDir, folder, 'add', '-A');
      git(gitDir, folder, 'commit', '-q', '--allow-empty', '-m', 'checkpoint');
      into.push(performance.now() - started);
    };
    const runBaton = async (into: number[], on = store): Promise<Checkpoint> => {
      const started = performance.now();
      const checkpoint = await on.take(folder);
      into.push(performance.now() - started);
      return checkpoint;
    };
    // Each round runs them in the other order, so that neither always finds the cache the other warmed.
    const runBoth = async (gitInto: number[], batonInto: number[]): Promise<Checkpoint> => {
      if (round % 2 === 0) {
        runGit(gitInto);
        return runBaton(batonInto);
      }
      const checkpoint = await runBaton(batonInto);
      runGit(gitInto);
      return checkpoint;
    };
    const first = await runBoth(timings.firstGit, timings.firstBaton);
    await walker.take(folder);
    // A host up for a while has taken such checkpoints before: two untimed ones warm its code.
    for (const warm of [1, 2]) {
      writeFileSync(path.join(folder, 'src', 'm1', 'f1.ts'), `warming ${warm}\n`);
      await store.take(folder);
    }
    const before = store.size();
    touchTen(folder, round);
    // The first checkpoint's garbage (the folder's contents, read once) is collected and the
    // disk's pending writes are flushed first: the incremental one is timed as it runs in a
    // host that has been up for a while, not while the kernel writes back 200 MB of seeding.
    settle();
    execFileSync('sync');
    const next = await runBoth(timings.nextGit, timings.nextBaton);
    // Growth is counted in whole pages of the database: averaged over twenty more such checkpoints.
    for (let more = 1; more <= GROWTH_SAMPLES; more += 1) {
      touchTen(folder, round * 100 + more);
      await store.take(folder);
    }
    timings.growth.push((store.size() - before) / (GROWTH_SAMPLES + 1));
    // What asking git's index what changed would cost (its `add -A` above left the index fresh).
    const asked = performance.now();
    git(gitDir, folder, 'status', '--porcelain');
    timings.gitStatus.push(performance.now() - asked);
    await runBaton(timings.nextWalk, walker);
    if (next.walked !== undefined || next.read !== 10) {
      throw new Error(`the checkpoint after 10 changes read ${next.read} files (walked: ${next.walked ?? 'no'}), not the 10 reported`);
    }
    await agentWritesTen(folder, round);
    const written = await runBaton(timings.agentBaton);
    if (written.walked !== undefined || written.read !== 10) {
      throw new Error(`the checkpoint after the agent's writes read ${written.read} files (walked: ${written.walked ?? 'no'}), not 10`);
    }
    return first.bytes;
  } finally {
    bench.close();
  }
}

/** Runs the benchmark idle, then busy (one CPU-bound process beside it), and prints its figures at each. */
export async function checkpointsBenchmark(): Promise<void> {
  for (const load of LOADS) {
    await atLoad(load, () => checkpointsAt(load));
  }
}

/** Each round's ratio, for the figures whose goal holds in every run, not only in the median. */
function eachRound(value: readonly number[], baseline: readonly number[]): string {
  return `(each round: ${value.map((ms, round) => (ms / baseline[round]!).toFixed(2)).join(', ')})`;
}

async function checkpointsAt(load: (typeof LOADS)[number]): Promise<void> {
  const timings: Timings = {
    firstGit: [],
    firstBaton: [],
    nextGit: [],
    nextBaton: [],
    nextWalk: [],
    gitStatus: [],
    agentBaton: [],
    growth: [],
  };
  let folderBytes = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    folderBytes = await checkpointRound(round, timings);
  }
  const ratio = (value: number[], baseline: number[]): string =>
    `${median(value).toFixed(1)} ms  ratio ${(median(value) / median(baseline)).toFixed(2)}x`;
  const files = `${SMALL_FILES + LARGE_FILES + 1} files kept, ${IGNORED_FILES} ignored, ${(folderBytes / 1e6).toFixed(0)} MB`;
  console.log(`\ncheckpoints: a seeded folder of ${files}; ${load}, median of ${ROUNDS} rounds`);
  report('first: shadow git add -A && commit (baseline)', `${median(timings.firstGit).toFixed(0)} ms`);
  report('first: Baton checkpoint (goal <= 1.0x)', ratio(timings.firstBaton, timings.firstGit));
  report('after 10 files changed: shadow git (baseline)', `${median(timings.nextGit).toFixed(0)} ms`);
  report(
    'after 10 files changed: Baton, watched (goal < 20 ms and <= 0.3x)',
    `${ratio(timings.nextBaton, timings.nextGit)}  ${eachRound(timings.nextBaton, timings.nextGit)}`,
  );
  report('after 10 files changed: Baton, walking the folder (no watch)', ratio(timings.nextWalk, timings.nextGit));
  report('git status --porcelain on a fresh index (git as the source, not used)', ratio(timings.gitStatus, timings.nextGit));
  report(
    'right after an agent wrote 10 files: Baton, watched (goal < 20 ms and <= 0.3x)',
    `${ratio(timings.agentBaton, timings.nextGit)}  ${eachRound(timings.agentBaton, timings.nextGit)}`,
  );
  report('data folder growth per checkpoint after 10 changes (goal <= 16 KiB)', `${(median(timings.growth) / 1024).toFixed(1)} KiB`);
  const rewind = { git: [] as number[], baton: [] as number[], growth: [] as number[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    await rewindRound(round, rewind);
  }
  report('rewind 200 changed files: shadow git read-tree -u (baseline)', `${median(rewind.git).toFixed(0)} ms`);
  report('rewind 200 changed files: Baton (goal <= 1.0x)', `${ratio(rewind.baton, rewind.git)}  ${eachRound(rewind.baton, rewind.git)}`);
  report('data folder growth for the checkpoint after 200 changes', `${(median(rewind.growth) / 1024).toFixed(1)} KiB`);
}
