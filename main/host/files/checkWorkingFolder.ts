/** The one check a working folder passes before a conversation may run in it. */
import { statSync } from 'node:fs';
import path from 'node:path';
import { InvalidRequestError } from '../../../app/errors.js';

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
