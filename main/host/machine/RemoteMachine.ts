/**
 * A machine reached through a machine server (`MachineServer`) over a pair of byte streams: every
 * `Machine` call becomes a request of the machine protocol, a process's bytes and a watch's
 * changes come back as events. The loopback machine speaks it to a local child; an SSH machine
 * will speak it over its channel. Every line from the server is parsed; one it cannot read is
 * dropped. When the streams end, every request waiting fails with why, and every process counts
 * as ended.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Env } from '../process/env.js';
import type {
  ExecOptions,
  ExecResult,
  FileKind,
  FileOwner,
  FileStat,
  FolderWatcher,
  LaunchSpec,
  Machine,
  MachineProcess,
  MachineScanOptions,
  TreeWatch,
  WatchFolder,
} from './Machine.js';
import {
  MACHINE_PROTOCOL_VERSION,
  MachineError,
  machineEvents,
  machineMethods,
  parseLine,
  serverLine,
  type MachineMethod,
  type MachineParams,
  type MachineResult,
} from './protocol.js';
import type { Cloned } from './cloneFiles.js';
import type { Restore } from './restoreFolder.js';
import type { Populated } from './populateFolder.js';
import { restoreInBatches } from './restoreInBatches.js';
import { byPath, sameManifest, type CheckpointEntry, type LeftOut, type Scanned, type ScanScope } from './scanFolder.js';
import { RemoteProcess } from './RemoteProcess.js';
import { RemoteTreeWatch } from './RemoteTreeWatch.js';

type Waiting = { method: MachineMethod; resolve: (result: unknown) => void; reject: (error: Error) => void };
type WatchListeners = { onEvent: Parameters<WatchFolder>[1]; onError: Parameters<WatchFolder>[2] };

/** A machine behind a machine server. */
export class RemoteMachine implements Machine {
  platform: { os: NodeJS.Platform; arch: string } = { os: 'linux', arch: 'x64' };
  home = '';
  dataDir = '';
  env: Env = {};
  /** The server's process id on its machine. */
  serverPid = 0;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly processes = new Map<number, RemoteProcess>();
  private readonly watches = new Map<number, WatchListeners>();
  private lost: string | undefined;
  /** The manifest the server keeps of each folder it scanned last, by its ref (see `scan`). */
  private readonly manifests = new Map<string, { ref: string; entries: ReadonlyMap<string, CheckpointEntry> }>();

  /** Where messages to the server go (plain lines on the stream pair, unless a subclass carries them otherwise). */
  private readonly output: Writable | undefined;

  /**
   * Over `streams`, one message per line, the connection lost when they end. Without, a subclass
   * carries the messages itself (`sendMessage`, `receiveMessage`) and says when it is lost.
   */
  protected constructor(
    readonly id: string,
    readonly name: string,
    streams?: { input: Readable; output: Writable },
  ) {
    if (streams) {
      this.output = streams.output;
      const lines = createInterface({ input: streams.input, crlfDelay: Infinity });
      lines.on('line', (line) => this.receive(line));
      lines.once('close', () => this.loseConnection(`the connection to ${this.name} ended`));
      streams.output.on('error', (error: Error) => this.loseConnection(`the connection to ${this.name} failed: ${error.message}`));
    }
  }

  /** Sends one message to the server. */
  protected sendMessage(message: object): void {
    this.output?.write(`${JSON.stringify(message)}\n`);
  }

  /** Ends the way to the server (the stream pair's output). */
  protected endTransport(): void {
    this.output?.end();
  }

  /** Connects over `input`/`output` and asks the server who it is; rejects when it does not answer in kind. */
  static async connect(options: { id: string; name: string; input: Readable; output: Writable }): Promise<RemoteMachine> {
    const machine = new RemoteMachine(options.id, options.name, { input: options.input, output: options.output });
    await machine.greet();
    return machine;
  }

  /** Asks the server who it is: its protocol version, system, home and environment. */
  protected async greet(): Promise<void> {
    const hello = await this.request('hello', { version: MACHINE_PROTOCOL_VERSION });
    if (hello.version !== MACHINE_PROTOCOL_VERSION) {
      throw new MachineError(
        `${this.name}'s machine server speaks version ${hello.version} of the protocol, and this Baton version ${MACHINE_PROTOCOL_VERSION}`,
      );
    }
    this.platform = { os: hello.os as NodeJS.Platform, arch: hello.arch };
    this.home = hello.home;
    this.dataDir = hello.dataDir ?? `${hello.home}/.baton`;
    this.env = hello.env;
    this.serverPid = hello.pid;
  }

  /** Sends one request and parses its answer. */
  request<M extends MachineMethod>(method: M, params: MachineParams<M>): Promise<MachineResult<M>> {
    if (this.lost !== undefined) {
      return Promise.reject(new MachineError(this.lost, 'ECONNRESET'));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { method, resolve: resolve as (result: unknown) => void, reject });
      this.sendMessage({ id, method, params });
    });
  }

  /** Sends a note (no answer). */
  note(note: 'stdin' | 'unwatch' | 'shutdown' | 'basedTree' | 'unwatchTree', params: object): void {
    if (this.lost === undefined) {
      this.sendMessage({ note, params });
    }
  }

  spawn(launch: LaunchSpec): MachineProcess {
    const handle = this.nextId++;
    const child = new RemoteProcess(this, handle);
    this.processes.set(handle, child);
    child.start(
      this.request('spawn', { process: handle, launch: { ...launch, args: [...launch.args], env: { ...launch.env } } }).catch(
        (error: unknown) => {
          this.processes.delete(handle);
          throw error;
        },
      ),
    );
    return child;
  }

  exec(command: string, args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    return this.request('exec', {
      command,
      args: [...args],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: { ...options.env } }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    });
  }

  async which(command: string, path?: string): Promise<string | undefined> {
    const found = await this.request('which', { command, ...(path === undefined ? {} : { path }) });
    return found.path ?? undefined;
  }

  readonly watchFolder: WatchFolder = (folder, onEvent, onError) => {
    const handle = this.nextId++;
    this.watches.set(handle, { onEvent, onError });
    this.request('watch', { watch: handle, folder }).catch((error: unknown) => {
      if (this.watches.delete(handle)) {
        onError(error as NodeJS.ErrnoException);
      }
    });
    const watcher: FolderWatcher = {
      close: () => {
        if (this.watches.delete(handle)) {
          this.note('unwatch', { watch: handle });
        }
      },
    };
    return watcher;
  };

  async readFile(path: string, maxBytes: number): Promise<{ data: Buffer; tooLarge: boolean }> {
    const read = await this.request('readFile', { path, maxBytes });
    return { data: Buffer.from(read.data, 'base64'), tooLarge: read.tooLarge };
  }

  async writeConfined(root: string, relative: string, data: Buffer, mode?: number, owner?: FileOwner): Promise<void> {
    await this.request('writeConfined', {
      root,
      relative,
      data: data.toString('base64'),
      ...(mode === undefined ? {} : { mode }),
      ...(owner === undefined ? {} : { owner }),
    });
  }

  stat(path: string): Promise<FileStat> {
    return this.request('stat', { path });
  }

  async realpath(path: string): Promise<string> {
    return (await this.request('realpath', { path })).path;
  }

  async list(path: string): Promise<Array<{ name: string; kind: FileKind }>> {
    return (await this.request('list', { path })).entries;
  }

  async mkdir(path: string, mode?: number): Promise<void> {
    await this.request('mkdir', { path, ...(mode === undefined ? {} : { mode }) });
  }

  async remove(path: string): Promise<void> {
    await this.request('remove', { path });
  }

  async rename(from: string, to: string): Promise<void> {
    await this.request('rename', { from, to });
  }

  async walk(folder: string): Promise<string[]> {
    return (await this.request('walk', { folder })).files;
  }

  watchTree(root: string, maxPaths: number): TreeWatch {
    return new RemoteTreeWatch(this, root, maxPaths);
  }

  async unpackAgent(file: string, url: string, folder: string, cmd: string): Promise<string> {
    return (await this.request('unpackAgent', { file, url, folder, cmd })).program;
  }

  /**
   * Only what changed crosses, either way: when the server still holds the manifest `previous`
   * is (the one its last scan of the folder gave), it is named, not sent; the answer is the new and
   * changed entries and the paths gone, applied here to `previous`.
   */
  async scan(
    folder: string,
    previous: ReadonlyMap<string, CheckpointEntry>,
    scope: ScanScope,
    options: MachineScanOptions,
  ): Promise<Scanned> {
    const kept = this.manifests.get(folder);
    const named = kept !== undefined && sameManifest(kept.entries, previous) ? kept.ref : undefined;
    const ask = (ref: string | undefined): Promise<MachineResult<'scan'>> =>
      this.request('scan', {
        folder,
        previous: ref === undefined ? [...previous.values()] : [],
        ...(ref === undefined ? {} : { previousRef: ref }),
        delta: true,
        scope:
          'walk' in scope
            ? { walk: true }
            : { ...scope, paths: [...scope.paths], tooLarge: [...scope.tooLarge], failed: [...scope.failed] },
        maxFileBytes: options.maxFileBytes,
        maxFiles: options.maxFiles,
        keep: options.keep,
      });
    let scanned: MachineResult<'scan'>;
    try {
      scanned = await ask(named);
    } catch (error) {
      // The server no longer holds it (a new session there): the manifest itself, then.
      if (named === undefined || (error as MachineError).code !== 'ESTALE') {
        throw error;
      }
      scanned = await ask(undefined);
    }
    options.signal?.throwIfAborted();
    const entries = new Map(previous);
    for (const gone of scanned.removed ?? []) {
      entries.delete(gone);
    }
    for (const found of scanned.entries) {
      entries.set(found.path, found);
    }
    if (scanned.ref === undefined) {
      this.manifests.delete(folder);
    } else {
      this.manifests.set(folder, { ref: scanned.ref, entries });
    }
    const isStored = options.isStored ?? (() => false);
    const { removed: _removed, ref: _ref, ...rest } = scanned;
    return {
      ...rest,
      entries: [...entries.values()].sort(byPath),
      // Contents the host's store holds already are not kept again.
      stored: scanned.stored.filter((blob) => !isStored(blob.hash)).map((blob) => ({ ...blob, data: Buffer.from(blob.data, 'base64') })),
    };
  }

  /**
   * The contents go with the requests, each once, in batches (see `restoreInBatches`).
   */
  restore(folder: string, restores: readonly Restore[], content: (hash: string) => Buffer, recordedReal?: string): Promise<LeftOut[]> {
    return restoreInBatches(this, folder, restores, content, { ...(recordedReal === undefined ? {} : { recordedReal }) }).then(
      (done) => done.failed,
    );
  }

  /** The same requests as a restore, the server told the folder is new (see `Machine.populate`). */
  populate(folder: string, entries: readonly CheckpointEntry[], content: (hash: string) => Buffer): Promise<Populated> {
    return restoreInBatches(
      this,
      folder,
      entries.map((entry) => ({ path: entry.path, entry })),
      content,
      { fresh: true },
    );
  }

  /** One request: the entries go without contents, and the clones are made there (see `Machine.cloneFiles`). */
  async cloneFiles(folder: string, from: string, entries: readonly CheckpointEntry[]): Promise<Cloned> {
    const answer = await this.request('cloneFiles', { folder, from, entries: [...entries] });
    return { cloned: answer.cloned, ...(answer.unsupported === undefined ? {} : { unsupported: answer.unsupported }) };
  }

  /** Ends the connection's side here: waiting requests fail, processes count as ended. */
  dispose(): Promise<void> {
    this.endTransport();
    this.loseConnection(`the connection to ${this.name} was closed`);
    return Promise.resolve();
  }

  private receive(line: string): void {
    const data = parseLine(line, serverLine);
    if (data) {
      this.receiveMessage(data);
    }
  }

  /** One message from the server; one not of the protocol's form is dropped. */
  protected receiveMessage(raw: unknown): void {
    const parsed = serverLine.safeParse(raw);
    if (!parsed.success) {
      return;
    }
    const data = parsed.data;
    if ('event' in data) {
      this.onEvent(data.event, data.params);
      return;
    }
    const waiting = this.waiting.get(data.id);
    if (!waiting) {
      return;
    }
    this.waiting.delete(data.id);
    if ('error' in data) {
      waiting.reject(new MachineError(data.error.message, data.error.code));
      return;
    }
    const result = machineMethods[waiting.method].result.safeParse(data.result);
    if (result.success) {
      waiting.resolve(result.data);
    } else {
      waiting.reject(
        new MachineError(`${this.name}'s machine server answered ${waiting.method} in a form Baton cannot read: ${result.error.message}`),
      );
    }
  }

  private onEvent(event: string, params: unknown): void {
    switch (event) {
      case 'output': {
        const parsed = machineEvents.output.safeParse(params);
        if (parsed.success) {
          this.processes.get(parsed.data.process)?.received(parsed.data.stream, Buffer.from(parsed.data.data, 'base64'));
        }
        return;
      }
      case 'exit': {
        const parsed = machineEvents.exit.safeParse(params);
        if (parsed.success) {
          this.processes.get(parsed.data.process)?.ended({ code: parsed.data.code, signal: parsed.data.signal as NodeJS.Signals | null });
          this.processes.delete(parsed.data.process);
        }
        return;
      }
      case 'changed': {
        const parsed = machineEvents.changed.safeParse(params);
        if (parsed.success) {
          this.watches.get(parsed.data.watch)?.onEvent({ type: parsed.data.type, name: parsed.data.name });
        }
        return;
      }
      case 'watchFailed': {
        const parsed = machineEvents.watchFailed.safeParse(params);
        const listeners = parsed.success ? this.watches.get(parsed.data.watch) : undefined;
        if (parsed.success && listeners) {
          this.watches.delete(parsed.data.watch);
          listeners.onError(new MachineError(parsed.data.message, parsed.data.code ?? undefined));
        }
        return;
      }
      default:
        return;
    }
  }

  /** The connection is gone for good: waiting requests fail with `why`, processes count as ended, watches as failed. */
  protected loseConnection(why: string): void {
    if (this.lost !== undefined) {
      return;
    }
    this.lost = why;
    for (const waiting of this.waiting.values()) {
      waiting.reject(new MachineError(why, 'ECONNRESET'));
    }
    this.waiting.clear();
    for (const child of this.processes.values()) {
      child.ended({ code: null, signal: null }, why);
    }
    this.processes.clear();
    for (const listeners of this.watches.values()) {
      listeners.onError(new MachineError(why, 'ECONNRESET'));
    }
    this.watches.clear();
  }
}
