/**
 * A private folder per agent process for the files Baton generates for it (a replacement prompt,
 * a wrapper), on the machine the agent runs on: 0700, files 0600, removed when the process ends
 * and, on this computer, at start-up for processes that died with an earlier host. Never inside
 * the working folder, never a person's own file.
 */
import { randomUUID } from 'node:crypto';
import { pathsOf, type Machine } from '../machine/Machine.js';

/** Where the folders live inside a machine's data folder. */
export const SESSION_FOLDERS = 'session-files';

/** The session folders of one host, on whichever machine each agent runs. */
export class SessionFolders {
  /** The host's own machine, and the removal of what earlier hosts left there, which a new folder there waits for. */
  private readonly home: { machineId: string; swept: Promise<void> };

  /**
   * `home` is the host's own machine. One host runs per data folder and its agents end with it, so
   * nothing left in its session folders is in use: removed now. Elsewhere an agent may outlive the
   * host that started it (a durable machine server), so another machine's folders are left.
   */
  constructor(home: Machine, log: (line: string) => void = () => {}) {
    const left = SessionFolders.root(home);
    const swept = home
      .remove(left)
      .catch((error: unknown) => log(`could not remove the session files earlier hosts left in ${left}: ${String(error)}`));
    this.home = { machineId: home.id, swept };
  }

  private static root(machine: Machine): string {
    return pathsOf(machine).join(machine.dataDir, SESSION_FOLDERS);
  }

  /** A new folder on `machine` for one process; nothing is on disk until {@link SessionFolder.make}. */
  folderOn(machine: Machine): SessionFolder {
    if (!machine.dataDir) {
      throw new Error(`${machine.name} has not said where its data folder is yet; it must be open before an agent starts there.`);
    }
    const folder = pathsOf(machine).join(SessionFolders.root(machine), `session-${randomUUID()}`);
    return new SessionFolder(machine, folder, machine.id === this.home.machineId ? this.home.swept : Promise.resolve());
  }
}

/** One process's folder of generated files. */
export class SessionFolder {
  private readonly files: Array<{ name: string; data: Buffer; mode: number }> = [];

  constructor(
    private readonly machine: Machine,
    readonly path: string,
    private readonly after: Promise<void>,
  ) {}

  /**
   * Asks for a file readable by this user only, written by {@link make} before the process starts;
   * returns its absolute path on the machine.
   */
  write(name: string, content: string, mode = 0o600): string {
    const paths = pathsOf(this.machine);
    if (name !== paths.basename(name) || name === '.' || name === '..') {
      throw new Error(`A session file's name must be a plain name, not ${JSON.stringify(name)}.`);
    }
    this.files.push({ name, data: Buffer.from(content), mode });
    return paths.join(this.path, name);
  }

  /** Makes the folder (0700) and writes every file asked for, on the machine. Nothing asked: nothing made. */
  async make(): Promise<void> {
    if (this.files.length === 0) {
      return;
    }
    await this.after;
    await this.machine.mkdir(this.path, 0o700);
    for (const file of this.files) {
      await this.machine.writeConfined(this.path, file.name, file.data, file.mode);
    }
  }

  /** Removes the folder and everything in it. */
  dispose(): Promise<void> {
    return this.machine.remove(this.path);
  }
}
