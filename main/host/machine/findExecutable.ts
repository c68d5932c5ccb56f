/** Resolves a command name to an executable file the way a shell would, using a given PATH. */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Returns the absolute path of `command`, or undefined when it is not found. A command with a
 * path separator is checked as given. On Windows, PATH is split on ";", PATHEXT extensions are
 * tried (npm's `.cmd` shims), and no execute bit is required. `platform` is for tests.
 */
export function findExecutable(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const isWindows = platform === 'win32';
  const extensions = isWindows ? ['', ...(env.PATHEXT ?? env.Pathext ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  const delimiter = isWindows ? ';' : ':';
  const candidates =
    command.includes('/') || (isWindows && command.includes('\\'))
      ? [path.resolve(command)]
      : (env.PATH ?? env.Path ?? '')
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    for (const extension of extensions) {
      // Windows file names are case-insensitive; other systems need the extension's case as listed and in lower case.
      for (const file of extension ? [candidate + extension, candidate + extension.toLowerCase()] : [candidate]) {
        if (isExecutableFile(file, isWindows)) {
          return file;
        }
      }
    }
  }
  return undefined;
}

function isExecutableFile(file: string, isWindows: boolean): boolean {
  try {
    if (!statSync(file).isFile()) {
      return false;
    }
    if (!isWindows) {
      accessSync(file, constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * True when something is at `file` on this computer: a program's own path, as the look-ups above
 * find it (the toolbox's check of a Command whose path has spaces).
 */
export function existsOnThisComputer(file: string): boolean {
  return existsSync(file);
}
