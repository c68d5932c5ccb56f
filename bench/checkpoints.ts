/**
 * Checkpoints of a working folder against the obvious alternative, a shadow git directory
 * (`git add -A && git commit` with `--git-dir` outside the folder), on a seeded folder of 5,000
 * files (about 100 MB: most small, some of a megabyte, some ignored by `.gitignore`): the first
 * checkpoint, then one after 10 files changed. Both take the same folder, in the same run. Then a
 * rewind of 200 changed files (150 changed, 25 added, 25 removed) back to the first checkpoint:
 * Baton's (look at the folder, compare, put the files back) against `git read-tree -u --reset` of
 * the shadow commit, and what the checkpoint after those changes added to the data folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CheckpointStore, diffManifests } from '../main/host/checkpoints/CheckpointStore.js';
import { restoreFiles } from '../main/host/checkpoints/restoreFiles.js';
import { median, random, report, settle } from './util.js';

const SMALL_FILES = 4_900;
const LARGE_FILES = 50;
const IGNORED_FILES = 50;
const ROUNDS = 3;

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
function seed(folder: string): void {
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
function touchTen(folder: string, round: number): void {
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
function change200(folder: string, round: number): void {
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

/** Rewind 200 changed files back to a checkpoint, Baton against the shadow git, alternating which goes first. */
async function rewindRound(round: number, timings: { git: number[]; baton: number[]; growth: number[] }): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'baton-bench-rewind-'));
  try {
    const folder = path.join(scratch, 'work');
    mkdirSync(folder);
    seed(folder);
    const gitDir = path.join(scratch, 'shadow.git');
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    const dataDir = path.join(scratch, 'data');
    mkdirSync(dataDir);
    const store = CheckpointStore.open(dataDir);
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
      const failed = await restoreFiles(
        folder,
        changes.map((change) => ({ path: change.path, entry: target.get(change.path) })),
        (hash) => store.content(hash),
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
    store.close();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Runs the benchmark and prints its figures. */
export async function checkpointsBenchmark(): Promise<void> {
  const firstGit: number[] = [];
  const firstBaton: number[] = [];
  const nextGit: number[] = [];
  const nextBaton: number[] = [];
  let growth = 0;
  let folderBytes = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'baton-bench-checkpoints-'));
    try {
      const folder = path.join(scratch, 'work');
      mkdirSync(folder);
      seed(folder);
      execFileSync('sync');
      const gitDir = path.join(scratch, 'shadow.git');
      execFileSync('git', ['init', '-q', '--bare', gitDir]);
      const dataDir = path.join(scratch, 'data');
      mkdirSync(dataDir);
      const store = CheckpointStore.open(dataDir);
      // Alternating which goes first, so neither always finds the folder in the page cache.
      const runGit = (into: number[]): void => {
        const started = performance.now();
        git(gitDir, folder, 'add', '-A');
        git(gitDir, folder, 'commit', '-q', '--allow-empty', '-m', 'checkpoint');
        into.push(performance.now() - started);
      };
      const runBaton = async (into: number[]): Promise<number> => {
        const started = performance.now();
        const checkpoint = await store.take(folder);
        into.push(performance.now() - started);
        return checkpoint.bytes;
      };
      if (round % 2 === 0) {
        runGit(firstGit);
        folderBytes = await runBaton(firstBaton);
      } else {
        folderBytes = await runBaton(firstBaton);
        runGit(firstGit);
      }
      const before = store.size();
      touchTen(folder, round);
      // The first checkpoint's garbage (the folder's contents, read once) is collected and the
      // disk's pending writes are flushed first: the incremental one is timed as it runs in a
      // host that has been up for a while, not while the kernel writes back 200 MB of seeding.
      settle();
      execFileSync('sync');
      if (round % 2 === 0) {
        runGit(nextGit);
        await runBaton(nextBaton);
      } else {
        await runBaton(nextBaton);
        runGit(nextGit);
      }
      growth = store.size() - before;
      store.close();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  const files = `${SMALL_FILES + LARGE_FILES + 1} files kept, ${IGNORED_FILES} ignored, ${(folderBytes / 1e6).toFixed(0)} MB`;
  console.log(`\ncheckpoints: a seeded folder of ${files}; median of ${ROUNDS} rounds`);
  report('first: shadow git add -A && commit (baseline)', `${median(firstGit).toFixed(0)} ms`);
  report(
    'first: Baton checkpoint (goal <= 1.5x)',
    `${median(firstBaton).toFixed(0)} ms  ratio ${(median(firstBaton) / median(firstGit)).toFixed(2)}x`,
  );
  report('after 10 files changed: shadow git (baseline)', `${median(nextGit).toFixed(0)} ms`);
  report(
    'after 10 files changed: Baton (goal < 100 ms and <= 1.0x)',
    `${median(nextBaton).toFixed(0)} ms  ratio ${(median(nextBaton) / median(nextGit)).toFixed(2)}x`,
  );
  report('data folder growth for that checkpoint', `${(growth / 1024).toFixed(0)} KiB`);
  const rewind = { git: [] as number[], baton: [] as number[], growth: [] as number[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    await rewindRound(round, rewind);
  }
  report('rewind 200 changed files: shadow git read-tree -u (baseline)', `${median(rewind.git).toFixed(0)} ms`);
  report(
    'rewind 200 changed files: Baton',
    `${median(rewind.baton).toFixed(0)} ms  ratio ${(median(rewind.baton) / median(rewind.git)).toFixed(2)}x`,
  );
  report('data folder growth for the checkpoint after 200 changes', `${(median(rewind.growth) / 1024).toFixed(0)} KiB`);
}
