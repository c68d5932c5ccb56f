/** Resolves a command name to an executable file the way a shell would, using a given PATH. */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Returns the absolute path of `command`, or undefined when it is not found. A command with a
 * path separator is checked as given. On Windows, PATHEXT extensions (.cmd shims) are tried.
 */
export function findExecutable(command: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const isWindows = process.platform === 'win32';
  const extensions = isWindows ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';')] : [''];
  const candidates = command.includes('/') || (isWindows && command.includes('\\'))
    ? [path.resolve(command)]
    : (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    for (const extension of extensions) {
      const file = candidate + extension;
      if (isExecutableFile(file)) {
        return file;
      }
    }
  }
  return undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) {
      return false;
    }
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
