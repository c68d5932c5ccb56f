/**
 * The machine server as a program: `node serverMain.js` serves this computer over its standard
 * input and output (the loopback machine runs it as a local child; an SSH machine runs it on the
 * remote). Nothing else may write to standard output: it carries the protocol. With
 * `--attach <run folder>` it is the relay to the durable server in that folder (started when none
 * runs), with `--daemon <run folder>` that server itself (see `durableServer.ts`).
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { runDaemon, runRelay, serverEnv } from './durableServer.js';
import { LocalMachine } from './LocalMachine.js';
import { MachineServer } from './MachineServer.js';

/** The longest the durable server keeps its processes with no client (a day, unless told). */
const IDLE_MS = 24 * 60 * 60 * 1000;

const [mode, runDir] = process.argv.slice(2);
const idleAt = process.argv.indexOf('--idle-ms');
const idleMs = idleAt > 0 ? Number(process.argv[idleAt + 1]) || IDLE_MS : IDLE_MS;
if (mode === '--daemon' && runDir) {
  runDaemon(runDir, idleMs);
} else if (mode === '--attach' && runDir) {
  await runRelay(runDir, fileURLToPath(import.meta.url), idleMs);
} else {
  const here = new LocalMachine(serverEnv(process.env, process.execPath, os.homedir()), os.homedir());
  const server = MachineServer.overStreams(here, process.stdin, process.stdout);
  void server.closed.then(() => process.exit(0));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => void server.dispose().then(() => process.exit(0)));
  }
}
