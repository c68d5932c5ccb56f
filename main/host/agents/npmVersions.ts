/**
 * An agent's npm package at another version than the one pinned: the versions the npm registry
 * has after a pinned one it does not have (the nearest newer is offered first), and a spec moved
 * to the version the person agreed to.
 */
import semver from 'semver';
import { packageName } from '../adapters/builtinAdapter.js';
import { pinOf } from './npmEnvironment.js';

/** The exact version a spec pins (`@scope/name@1.2.3` → `1.2.3`), if it pins one (not a range or a tag). */
export function exactVersionOf(spec: string): string | undefined {
  const pinned = pinOf(spec);
  return pinned !== undefined && semver.valid(pinned) ? pinned : undefined;
}

/**
 * The released versions newer than the one `spec` pins, oldest first, from `npm view <name>
 * versions --json` (a list, or one version as a string); none when the spec pins no version or
 * the answer is not a list of versions. Pre-releases are left out.
 */
export function newerVersions(spec: string, viewed: string): string[] {
  const pinned = exactVersionOf(spec);
  let versions: unknown;
  try {
    versions = JSON.parse(viewed);
  } catch {
    return [];
  }
  const listed: unknown[] = typeof versions === 'string' ? [versions] : Array.isArray(versions) ? versions : [];
  if (!pinned) {
    return [];
  }
  return listed
    .filter((version): version is string => typeof version === 'string' && semver.valid(version) !== null)
    .filter((version) => semver.prerelease(version) === null && semver.gt(version, pinned))
    .sort(semver.compare);
}

/** `spec` at `version` (`cline@3.0.55`, `3.0.57` → `cline@3.0.57`). */
export function atVersion(spec: string, version: string): string {
  return `${packageName(spec)}@${version}`;
}
