/**
 * The loopback machine: this computer reached the way a remote one is, through the machine server
 * run as a local child (`node serverMain.js`) and the machine protocol over its standard input and
 * output. It proves that everything the host does through a `Machine` works through the server:
 * the SSH machine is the same server at the end of an SSH channel.
 */
import type { Env } from '../process/env.js';
import { LocalMachine } from './LocalMachine.js';
import type { MachineProcess } from './Machine.js';
import { RemoteMachine } from './RemoteMachine.js';
import { ownFile } from '../ownFiles.js';

/** The server program, beside this module once built (`dist/main/host/machine/serverMain.js`). */
export const SERVER_SCRIPT = ownFile('main/host/machine/serverMain.js');

/** A machine served by a local child. */
export class LoopbackMachine extends RemoteMachine {
  private constructor(
    private readonly server: MachineProcess,
    name: string,
  ) {
    super('loopback', name, { input: server.stdout, output: server.stdin });
  }

  /**
   * Starts the server with `node` (this process's own by default) and connects to it. `script` is
   * the built server (tests running from the sources name the one in `dist/`).
   */
  static async start(options: { env: Env; script?: string; node?: string; name?: string }): Promise<LoopbackMachine> {
    const here = new LocalMachine(options.env);
    const server = here.spawn({
      command: options.node ?? process.execPath,
      args: [options.script ?? SERVER_SCRIPT],
      env: { ...options.env },
      cwd: here.home,
    });
    await server.spawned();
    const machine = new LoopbackMachine(server, options.name ?? 'Loopback');
    try {
      await machine.greet();
    } catch (error) {
      await server.dispose();
      throw new Error(`the loopback machine server did not answer: ${(error as Error).message}; ${server.lastErrorLines(5)}`);
    }
    return machine;
  }

  /** Ends the server (and with it every process it ran). */
  override async dispose(): Promise<void> {
    await super.dispose();
    await this.server.dispose();
  }
}
