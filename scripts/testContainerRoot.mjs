// The root of the container tests' image, made from Debian packages once and kept across runs:
// `debootstrap --variant=minbase --include=nodejs,git bookworm` (about a minute), packed as
// `.tmp/container/bookworm-nodejs-git.tar`. `npm test` makes it in the background while it builds;
// the container fixture (e2e/fixtures/container.ts) waits for it, or makes it for a lone test run.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Runs a command to its end; rejects with its last words when it fails. */
export function runTool(command, args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk.toString()));
    child.stderr.on('data', (chunk) => (err += chunk.toString()));
    if (input) {
      input.pipe(child.stdin);
    }
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${err.trim().split('\n').slice(-3).join(' / ')}`)),
    );
  });
}

/** Runs `work` holding a lock (a folder made atomically); a lock whose holder has died is taken over. */
export async function withLock(lock, work) {
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      let holder = 0;
      try {
        holder = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
        process.kill(holder, 0);
      } catch {
        if (holder) {
          rmSync(lock, { recursive: true, force: true });
          continue;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(path.join(lock, 'pid'), { force: true });
    rmdirSync(lock);
  }
}

/** The image's root as a tar file under `repo`/.tmp/container/, made when it is not there yet; its path. */
export async function ensureContainerRoot(repo) {
  const dir = path.join(repo, '.tmp', 'container');
  const tar = path.join(dir, 'bookworm-nodejs-git.tar');
  return withLock(path.join(dir, 'lock'), async () => {
    if (existsSync(tar)) {
      return tar;
    }
    // Made outside the repository: a tool that walks it (prettier's globs) must never meet a root
    // being made, with its /proc mounted.
    const root = mkdtempSync(path.join(os.tmpdir(), 'baton-container-root-'));
    try {
      await runTool('debootstrap', ['--variant=minbase', '--include=nodejs,git', 'bookworm', root]);
      await runTool('tar', ['-C', root, '-cf', `${tar}.part`, '.']);
      renameSync(`${tar}.part`, tar);
    } finally {
      // A debootstrap that failed midway may leave the host's /proc or /sys mounted in it: never remove through those.
      for (const mount of ['proc', 'sys']) {
        await runTool('umount', ['-l', path.join(root, mount)]).catch(() => undefined);
      }
      rmSync(root, { recursive: true, force: true });
    }
    return tar;
  });
}

// `node scripts/testContainerRoot.mjs` (`.ci/run` once debootstrap is installed; `npm test` in the background):
// makes it unless it is there.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const tar = await ensureContainerRoot(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
  console.log(`The container tests' image root is ${tar} (${Math.round((performance.now() - started) / 1000)} s).`);
}
