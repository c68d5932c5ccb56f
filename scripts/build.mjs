// Builds everything Baton runs: the host, web host and Electron shell (tsc -> dist/) and the renderer (vite -> dist/renderer).
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function run(label, command, args) {
  process.stdout.write(`Building ${label}…\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`Build failed: ${label}.`);
    process.exit(result.status ?? 1);
  }
}

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
run('host and shell', bin('tsc'), ['-p', 'tsconfig.node.json']);
run('renderer', bin('vite'), ['build', '--logLevel', 'warn']);
// The lockfiles of the built-in agents' pinned packages, beside the installer that uses them.
cpSync(path.join(root, 'main/host/agents/agentLocks'), path.join(root, 'dist/main/host/agents/agentLocks'), { recursive: true });
// The ACP Registry's index as it shipped (used until, and unless, a newer one is downloaded).
cpSync(path.join(root, 'main/host/agents/registry/snapshot.json'), path.join(root, 'dist/main/host/agents/registry/snapshot.json'));
