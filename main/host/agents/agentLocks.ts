/**
 * The lockfiles Baton ships for its built-in agents' pinned packages (`agentLocks/<agentId>/`:
 * `manifest.json` and `lock.json`, installed as package.json and package-lock.json; other names,
 * since packagers treat those specially; written by `scripts/agent-locks.mjs`): a managed install of the pinned version runs `npm install`
 * following that lock
 * on that exact tree, with every package's integrity checked, instead of resolving the
 * dependencies afresh. A lock is used only when it was made for the very packages being installed.
 */
import path from 'node:path';
import { packageName } from '../adapters/builtinAdapter.js';
import { dataFileExists, readDataText } from '../store/dataFiles.js';
import { ownFile } from '../ownFiles.js';

/** Where the shipped locks are (beside this module, in the source tree and in dist/). */
export const AGENT_LOCKS_DIR = ownFile('main/host/agents/agentLocks');

/** The package.json a lock belongs to: the pinned packages as exact dependencies. */
export function lockManifest(
  agentId: string,
  packages: readonly string[],
): { name: string; private: true; dependencies: Record<string, string> } {
  const dependencies: Record<string, string> = {};
  for (const spec of packages) {
    const name = packageName(spec);
    dependencies[name] = name === spec ? spec : spec.slice(name.length + 1);
  }
  return { name: `baton-agent-${agentId.replace(/[^\w.-]+/g, '_')}`, private: true, dependencies };
}

/** The lock for exactly these packages, as the two files to put in the install folder; undefined when none matches. */
export function agentLock(
  agentId: string,
  packages: readonly string[],
  locksDir: string = AGENT_LOCKS_DIR,
): { manifest: string; lock: string } | undefined {
  const folder = path.join(locksDir, agentId.replace(/[^\w.-]+/g, '_'));
  const manifestFile = path.join(folder, 'manifest.json');
  const lockFile = path.join(folder, 'lock.json');
  if (!dataFileExists(manifestFile) || !dataFileExists(lockFile)) {
    return undefined;
  }
  const manifest = readDataText(manifestFile);
  const wanted = lockManifest(agentId, packages).dependencies;
  const locked = (JSON.parse(manifest) as { dependencies?: Record<string, string> }).dependencies ?? {};
  const same =
    Object.keys(wanted).length === Object.keys(locked).length &&
    Object.entries(wanted).every(([name, version]) => locked[name] === version);
  return same ? { manifest, lock: readDataText(lockFile) } : undefined;
}
