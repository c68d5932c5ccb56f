// Builds everything Baton runs: the host, web host and Electron shell (tsc -> dist/), the renderer (vite -> dist/renderer),
// and the single-file bundles of the web host and the machine server (rolldown).
// With --if-changed (npm run bench, npm run store:rebuild), nothing is built when no input changed
// since the last build (the digest of scripts/buildInputs.mjs, stamped in dist/.build-inputs); the
// starts make the same check in their own process (scripts/ensureBuilt.mjs). npm test and
// packaging always build clean.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildStamp, buildState } from './ensureBuilt.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = buildStamp(root);
const { digest, current } = buildState(root);
if (process.argv.includes('--if-changed') && current) {
  process.stdout.write('The build is up to date (no source changed since it was made).\n');
  process.exit(0);
}
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function run(label, command, args, env = process.env) {
  process.stdout.write(`Building ${label}…\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) {
    console.error(`Build failed: ${label}.`);
    process.exit(result.status ?? 1);
  }
}

/** Bundles `entry` and what it imports into one ES module for Node, `file` (rolldown), with the options `extra`. */
function bundle(label, entry, file, extra = []) {
  run(label, bin('rolldown'), [entry, '--platform', 'node', '--format', 'esm', ...extra, '--file', file, '--log-level', 'warn']);
}

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
run('host and shell', bin('tsc'), ['-p', 'tsconfig.node.json']);
// Always React's production build: vite keeps a NODE_ENV it is given, and a build started from a
// test (vitest sets NODE_ENV=test) or a shell with NODE_ENV=development got the development one,
// 1.8 MB with every element's source position and React's checks, for the browser tests after it.
run('renderer', bin('vite'), ['build', '--logLevel', 'warn'], { ...process.env, NODE_ENV: 'production' });
// The web host as one file over tsc's (the packages included, but the native SQLite binding and
// jsonc-parser, whose UMD build requires its parts at run time): a start loads one module instead of
// about 500, half the CPU (about 0.5 s against 1.0 s). It stays at dist/main/web/, as deep as
// dist/main/host/, so the paths of Baton's own files (main/host/ownFiles.ts) hold in both.
bundle('web host', 'main/web/cli.ts', 'dist/main/web/cli.js', [
  '--external',
  'better-sqlite3',
  '--external',
  'jsonc-parser',
  '--sourcemap',
]);
// The machine server as one file (zod included), uploaded as it is to an SSH machine.
bundle('machine server', 'main/host/machine/serverMain.ts', 'dist/machine-server/server.mjs');
// The lockfiles of the built-in agents' pinned packages, beside the installer that uses them.
cpSync(path.join(root, 'main/host/agents/agentLocks'), path.join(root, 'dist/main/host/agents/agentLocks'), { recursive: true });
// The ACP Registry's index as it shipped (used until, and unless, a newer one is downloaded).
cpSync(path.join(root, 'main/host/agents/registry/snapshot.json'), path.join(root, 'dist/main/host/agents/registry/snapshot.json'));
// Stamped last: a build that failed half way is never taken as up to date.
writeFileSync(stamp, `${digest}\n`);
