/**
 * The version of the npm package an executable on this computer belongs to (an npm-installed
 * agent's bin links into its package), beside `findExecutable`'s look-ups.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** The nearest package.json above the executable's real file, if it names a version. */
export function packageVersion(executable: string): string | undefined {
  let dir: string;
  try {
    dir = path.dirname(realpathSync(executable));
  } catch {
    return undefined;
  }
  for (let depth = 0; depth < 6; depth += 1) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
        return typeof version === 'string' ? version : undefined;
      } catch {
        return undefined;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      return undefined;
    }
    dir = parent;
  }
  return undefined;
}
