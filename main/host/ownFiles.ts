/**
 * Where Baton's own files are: the registry snapshot, the agents' lockfiles, the machine server,
 * the stdio bridge and launcher, the renderer. Each is named by its path under the build (`dist/`),
 * which is where this module is found from: built, this file is `dist/main/host/ownFiles.js`, and
 * the web host's single-file bundle, `dist/main/web/cli.js` (which this module is part of), sits as
 * deep, so `../../` is `dist/` either way. Run from the sources (the tests), the same paths are
 * under the repository (where the snapshot and the lockfiles live; what only the build makes is
 * asked for under `dist/` by name).
 */
import { fileURLToPath } from 'node:url';

/** True when this module runs from its TypeScript source (vitest), not from the build. */
export const runFromSources = import.meta.url.endsWith('.ts');

/** A file of Baton's own, by its path under `dist/` (under the repository, run from the sources). */
export function ownFile(relative: string): string {
  return fileURLToPath(new URL(`../../${relative}`, import.meta.url));
}
