// The build check of every start (`npm start`, `npm run web`, `node scripts/web.mjs`), done in the
// process that then starts Baton: one Node start-up fewer than running `build.mjs --if-changed`
// first. Nothing is built when the digest of the build's inputs (scripts/buildInputs.mjs) matches
// the one stamped on the last build (dist/.build-inputs); otherwise the build runs, in full.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildInputsDigest } from './buildInputs.mjs';

/** Where the last build's digest is stamped. */
export function buildStamp(root) {
  return path.join(root, 'dist', '.build-inputs');
}

/** The digest of the build's inputs now, and whether the last build was made from them. */
export function buildState(root) {
  const digest = buildInputsDigest(root);
  const stamp = buildStamp(root);
  return { digest, current: existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest };
}

/** Builds Baton when an input changed since the last build (or none was made); throws when the build fails. */
export function ensureBuilt(root) {
  if (buildState(root).current) {
    return;
  }
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error('The build failed; see its output above.');
  }
}

/** {@link ensureBuilt} for a start: a failed build ends the process, saying so. */
export function ensureBuiltOrExit(root) {
  try {
    ensureBuilt(root);
  } catch (error) {
    console.error(`Baton could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
