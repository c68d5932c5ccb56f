/** The one check a working folder passes before a conversation may run in it. */
import { statSync } from 'node:fs';
import path from 'node:path';
import { InvalidRequestError } from '../../../app/errors.js';
import type { Machine } from '../machine/Machine.js';

/**
 * Throws InvalidRequestError unless `cwd` is an absolute path to an existing folder on `machine`
 * (a machine reached over SSH: a POSIX one), named in the error.
 */
export async function checkWorkingFolderOn(machine: Pick<Machine, 'name' | 'stat'>, cwd: string): Promise<void> {
  if (!cwd.startsWith('/')) {
    throw new InvalidRequestError(`The working folder must be an absolute path on ${machine.name}; "${cwd}" is not.`);
  }
  const found = await machine.stat(cwd).catch(() => undefined);
  if (!found) {
    throw new InvalidRequestError(`The working folder ${cwd} does not exist on ${machine.name}.`);
  }
  if (found.kind !== 'folder') {
    throw new InvalidRequestError(`The working folder ${cwd} on ${machine.name} is not a folder.`);
  }
}

/** Throws InvalidRequestError unless `cwd` is an absolute path to an existing folder. */
export function checkWorkingFolder(cwd: string): void {
  if (!path.isAbsolute(cwd)) {
    throw new InvalidRequestError(`The working folder must be an absolute path; "${cwd}" is not.`);
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    throw new InvalidRequestError(`The working folder ${cwd} does not exist.`);
  }
  if (!isDirectory) {
    throw new InvalidRequestError(`The working folder ${cwd} is not a folder.`);
  }
}
