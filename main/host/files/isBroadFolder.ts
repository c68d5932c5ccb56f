/** Whether a working folder opens (nearly) everything to an agent. */
import path from 'node:path';

/** True when an agent working in `cwd` could reach (nearly) everything: `/`, the home folder or a folder holding it. */
export function isBroadFolder(cwd: string, homeDir: string): boolean {
  const folder = path.resolve(cwd);
  const home = path.resolve(homeDir);
  return folder === path.parse(folder).root || folder === home || home.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
}
