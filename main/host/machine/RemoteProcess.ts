/** A process on a remote machine (see `RemoteMachine`), its bytes carried by the machine protocol. */
import { PassThrough, Writable } from 'node:stream';
import { ByteRing } from '../process/ByteRing.js';
import type { ExitInfo, MachineProcess } from './Machine.js';
import type { RemoteMachine } from './RemoteMachine.js';

const STDERR_LIMIT = 64 * 1024;

/** A process on a remote machine, its bytes carried by the protocol. */
export class RemoteProcess implements MachineProcess {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly stdin: Writable;
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private remotePid: number | undefined;
  private started: Promise<void> = Promise.resolve();
  private readonly errorOutput = new ByteRing(STDERR_LIMIT);
  private settle: (exit: ExitInfo) => void = () => undefined;

  constructor(
    private readonly machine: RemoteMachine,
    private readonly handle: number,
  ) {
    this.stdin = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        machine.note('stdin', { process: handle, data: chunk.toString('base64') });
        done();
      },
      final: (done) => {
        machine.note('stdin', { process: handle, end: true });
        done();
      },
    });
    this.exited = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  /** Ties the process to its spawn request. */
  start(spawned: Promise<{ pid: number }>): void {
    this.started = spawned.then(
      ({ pid }) => {
        this.remotePid = pid;
      },
      (error: unknown) => {
        this.ended({ code: null, signal: null });
        throw error;
      },
    );
    // Handled here too: a caller that never asks `spawned()` leaves no unhandled rejection.
    this.started.catch(() => undefined);
  }

  get pid(): number | undefined {
    return this.remotePid;
  }

  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  spawned(): Promise<void> {
    return this.started;
  }

  received(stream: 'stdout' | 'stderr', data: Buffer): void {
    if (stream === 'stderr') {
      this.errorOutput.push(data);
    }
    this[stream].write(data);
  }

  /** It ended (or the connection did: then `why` is kept as its last error output). */
  ended(exit: ExitInfo, why?: string): void {
    if (this.exitInfo) {
      return;
    }
    if (why) {
      this.errorOutput.push(Buffer.from(`\n${why}\n`));
    }
    this.exitInfo = exit;
    this.stdout.end();
    this.stderr.end();
    this.settle(exit);
  }

  lastErrorLines(lines: number): string {
    return this.errorOutput.lastLines(lines);
  }

  async hangUpChildren(): Promise<void> {
    if (this.exitInfo === undefined) {
      await this.machine.request('hangUpChildren', { process: this.handle }).catch(() => undefined);
    }
  }

  async dispose(): Promise<void> {
    await this.started.catch(() => undefined);
    if (this.exitInfo === undefined) {
      await this.machine.request('disposeProcess', { process: this.handle }).catch(() => undefined);
    }
    await this.exited;
  }
}
