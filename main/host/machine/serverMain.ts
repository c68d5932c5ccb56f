/**
 * The machine server as a program: `node serverMain.js` serves this computer over its standard
 * input and output (the loopback machine runs it as a local child; an SSH machine runs it on the
 * remote). Nothing else may write to standard output: it carries the protocol.
 */
import os from 'node:os';
import { definedEnv } from '../process/env.js';
import { LocalMachine } from './LocalMachine.js';
import { MachineServer } from './MachineServer.js';

const server = new MachineServer(new LocalMachine(definedEnv(process.env), os.homedir()), process.stdin, process.stdout);
void server.closed.then(() => process.exit(0));
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => void server.dispose().then(() => process.exit(0)));
}
