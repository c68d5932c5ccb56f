/**
 * A tree watch kept by a machine server (see `FolderWatch`): the server watches and lists the
 * folder where it is, and a checkpoint asks it what changed. When the server no longer holds the
 * watch (it was started again) or cannot be reached, the answer is "unknown", so the checkpoint
 * walks, and the watch is asked for again.
 */
import type { Known, Taken, TreeWatch } from './Machine.js';
import type { MachineMethod, MachineParams, MachineResult } from './protocol.js';

/** What a tree watch asks of the machine it is on. */
export type TreeWatchLink = {
  request<M extends MachineMethod>(method: M, params: MachineParams<M>): Promise<MachineResult<M>>;
  note(note: 'basedTree' | 'unwatchTree', params: object): void;
};

/** The handles of tree watches, one sequence for every remote machine (a handle is only ever sent to one). */
let nextHandle = 1;

/** What the protocol carries, as a watch knows it. */
function knownOf(wire: MachineResult<'peekTree'>['known']): Known {
  return 'since' in wire ? { since: wire.since, paths: new Set(wire.paths) } : wire;
}

/** A watch of a folder on a remote machine, kept by its server. */
export class RemoteTreeWatch implements TreeWatch {
  private readonly handle = nextHandle++;
  private closed = false;
  /** Why the watch must be asked for again (its last request failed), if it must. */
  private broken: string | undefined;

  constructor(
    private readonly link: TreeWatchLink,
    private readonly root: string,
    private readonly maxPaths: number,
  ) {}

  async start(): Promise<void> {
    try {
      await this.link.request('watchTree', { watch: this.handle, root: this.root, maxPaths: this.maxPaths });
      this.broken = undefined;
    } catch (error) {
      this.broken = `watching it there failed: ${(error as Error).message}`;
    }
  }

  async take(): Promise<Taken> {
    const known = await this.ask(async () => {
      const taken = await this.link.request('takeTree', { watch: this.handle });
      return { known: knownOf(taken.known), token: taken.token };
    });
    return 'token' in known ? known : { known, token: -1 };
  }

  peek(): Promise<Known> {
    return this.ask(async () => knownOf((await this.link.request('peekTree', { watch: this.handle })).known));
  }

  based(token: number, checkpointId: string): void {
    if (!this.closed && token >= 0) {
      this.link.note('basedTree', { watch: this.handle, token, checkpointId });
    }
  }

  close(): void {
    if (!this.closed) {
      this.closed = true;
      this.link.note('unwatchTree', { watch: this.handle });
    }
  }

  /** The server's answer, or, when it cannot give one, why not (and the watch asked for again). */
  private async ask<T>(question: () => Promise<T>): Promise<T | { unknown: string }> {
    if (this.broken === undefined) {
      try {
        return await question();
      } catch (error) {
        this.broken = `the machine's watch was lost (${(error as Error).message})`;
      }
    }
    const why = this.broken;
    if (!this.closed) {
      // Watched again from now on: the checkpoint after this one can count from this one.
      await this.start();
    }
    return { unknown: why };
  }
}
