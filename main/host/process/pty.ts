/**
 * Pseudo-terminals without a native module: the system's `script` command (util-linux on Linux,
 * BSD on macOS) runs a command line in one. Windows has none. Used by terminal log-ins, and to
 * tell agents at `initialize` whether Baton can run their terminal log-in methods.
 */
import type { Env } from './env.js';
import { findExecutable } from '../machine/findExecutable.js';

/** The `script` program that gives a command a pseudo-terminal here, if there is one. */
export function ptyProgram(env: Env, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux' && platform !== 'darwin') {
    return undefined;
  }
  return findExecutable('script', { PATH: [env.PATH ?? '', '/usr/bin', '/bin'].filter(Boolean).join(':') });
}

/** How `script` runs `line` (a /bin/sh command line) in a pseudo-terminal, on each system. */
export function scriptArgs(line: string, platform: NodeJS.Platform): string[] {
  // util-linux: -q quiet, -f flush each write, -e pass the command's exit status on, -c the command.
  // BSD (macOS): script [-q] file command…
  return platform === 'darwin' ? ['-q', '/dev/null', '/bin/sh', '-c', line] : ['-q', '-f', '-e', '-c', line, '/dev/null'];
}
