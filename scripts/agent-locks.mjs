// `node scripts/agent-locks.mjs` (after `npm run build`): writes the lockfile of every built-in
// agent's pinned packages under main/host/agents/agentLocks/<agentId>/, so a managed install
// gets exactly the tree Baton was tested with (`npm ci`), not whatever the registry resolves that
// day. Run it whenever a pin changes; a test fails while a pin has no matching lock.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The built host (dist/, or another build folder named by BATON_BUILT).
const built = process.env.BATON_BUILT ?? path.join(root, 'dist');
const { builtinAdapters } = await import(pathToFileURL(path.join(built, 'main/host/adapters/AgentCatalog.js')).href);
const { lockManifest } = await import(pathToFileURL(path.join(built, 'main/host/agents/agentLocks.js')).href);
const only = process.argv.slice(2);

for (const adapter of builtinAdapters) {
  if (!adapter.npmPackages || (only.length > 0 && !only.includes(adapter.agentId))) {
    continue;
  }
  const manifest = lockManifest(adapter.agentId, adapter.npmPackages);
  const work = mkdtempSync(path.join(os.tmpdir(), 'baton-lock-'));
  try {
    writeFileSync(path.join(work, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    process.stdout.write(`Locking ${adapter.agentId}: ${adapter.npmPackages.join(' ')}…\n`);
    const result = spawnSync('npm', ['install', '--package-lock-only', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: work,
      stdio: 'inherit',
    });
    if (result.status !== 0) {
      console.error(`Could not lock ${adapter.agentId}.`);
      process.exit(result.status ?? 1);
    }
    const target = path.join(root, 'main/host/agents/agentLocks', adapter.agentId);
    mkdirSync(target, { recursive: true });
    writeFileSync(path.join(target, 'manifest.json'), readFileSync(path.join(work, 'package.json')));
    writeFileSync(path.join(target, 'lock.json'), readFileSync(path.join(work, 'package-lock.json')));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
