/** The one check a working folder passes before a conversation may run in it. */
import path from 'node:path';
import { InvalidRequestError } from '../../../app/errors.js';
import type { Machine } from '../machine/Machine.js';
import type { Machines } from '../machine/Machines.js';

/**
 * Throws InvalidRequestError unless `cwd` is an absolute path to an existing folder on `machine`,
 * named in the error. On the host's own machine (`home`) the path is this computer's kind and the
 * message names no machine; another machine (reached over SSH or a command) is a POSIX one.
 */
export async function checkWorkingFolderOn(machine: Pick<Machine, 'name' | 'stat'>, cwd: string, home = false): Promise<void> {
  const on = home ? '' : ` on ${machine.name}`;
  if (!(home ? path.isAbsolute(cwd) : cwd.startsWith('/'))) {
    throw new InvalidRequestError(`The working folder must be an absolute path${on}; "${cwd}" is not.`);
  }
  const found = await machine.stat(cwd).catch(() => undefined);
  if (!found) {
    throw new InvalidRequestError(`The working folder ${cwd} does not exist${on}.`);
  }
  if (found.kind !== 'folder') {
    throw new InvalidRequestError(`The working folder ${cwd}${on} is not a folder.`);
  }
}

/**
 * {@link checkWorkingFolderOn} on the machine `machineId` names (absent: the host's own); another
 * one is connected first, or says why it cannot be.
 */
export async function checkWorkingFolderAt(
  machines: Pick<Machines, 'local' | 'isLocal' | 'connect'>,
  cwd: string,
  machineId: string | undefined,
): Promise<void> {
  const home = machineId === undefined || machines.isLocal(machineId);
  await checkWorkingFolderOn(home ? machines.local : await machines.connect(machineId), cwd, home);
}
