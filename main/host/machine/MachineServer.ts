/**
 * The machine server: `LocalMachine` behind the machine protocol (`protocol.ts`), one JSON object
 * per line in and out. It runs on the computer it serves (a local child for the loopback machine,
 * the far end of an SSH channel), so processes, files, scans and watches happen where the inodes
 * are, with the same guards. Every line is parsed; a line it cannot read is answered with an error
 * (or dropped, when it has no id to answer) and never ends the server. Over plain streams
 * ({@link MachineServer.overStreams}), it ends every process and watch it holds when its input
 * ends; the durable server (`durableServer.ts`) keeps them while no client is attached and sends
 * what they said once one is again.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { LocalMachine } from './LocalMachine.js';
import type { FolderWatcher, Known, MachineProcess, TreeWatch } from './Machine.js';
import { sameEntry, type CheckpointEntry } from './scanFolder.js';
import {
  clientLine,
  MACHINE_PROTOCOL_VERSION,
  machineMethods,
  machineNotes,
  parseLine,
  type MachineMethod,
  type MachineParams,
  type MachineResult,
} from './protocol.js';

type Handlers = { [M in MachineMethod]: (params: MachineParams<M>) => Promise<MachineResult<M>> };

/** Serves one machine to one client, through whatever carries its messages. */
export class MachineServer {
  private readonly processes = new Map<number, MachineProcess>();
  private readonly watches = new Map<number, FolderWatcher>();
  private readonly trees = new Map<number, TreeWatch>();
  /** The last manifest scanned of each folder, so that the next scan's client names it instead of sending it. */
  private readonly manifests = new Map<string, { ref: string; entries: ReadonlyMap<string, CheckpointEntry> }>();
  private nextManifest = 1;
  private readonly handlers: Handlers;
  /** Resolves once the input has ended and everything held is ended (over plain streams). */
  closed: Promise<void> = Promise.resolve();

  constructor(
    private readonly machine: LocalMachine,
    /** Sends one message to the client. */
    private readonly sendMessage: (message: object) => void,
  ) {
    this.handlers = this.makeHandlers();
  }

  /** Serves over a stream pair, one message per line; when the input ends, everything held is ended. */
  static overStreams(machine: LocalMachine, input: Readable, output: Writable): MachineServer {
    const server = new MachineServer(machine, (message) => output.write(`${JSON.stringify(message)}\n`));
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => server.receiveLine(line));
    server.closed = new Promise((resolve) => lines.once('close', () => void server.dispose().then(resolve)));
    return server;
  }

  /** What the `shutdown` note does (the durable server ends; over plain streams, the input's end does it). */
  onShutdown: () => void = () => undefined;

  /** How many processes it holds. */
  get processCount(): number {
    return this.processes.size;
  }

  /** Ends every process and watch. */
  async dispose(): Promise<void> {
    for (const watcher of this.watches.values()) {
      watcher.close();
    }
    this.watches.clear();
    for (const tree of this.trees.values()) {
      tree.close();
    }
    this.trees.clear();
    await Promise.all([...this.processes.values()].map((child) => child.dispose()));
    this.processes.clear();
  }

  private send(message: object): void {
    this.sendMessage(message);
  }

  /** One line of the protocol (plain streams). */
  receiveLine(line: string): void {
    const message = parseLine(line, clientLine);
    if (message) {
      this.receive(message);
    }
  }

  /** One message, read already (a resumable link); one not of the protocol's form is dropped. */
  receiveMessage(raw: unknown): void {
    const message = clientLine.safeParse(raw);
    if (message.success) {
      this.receive(message.data);
    }
  }

  private receive(message: ReturnType<typeof clientLine.parse>): void {
    if ('note' in message) {
      this.onNote(message.note, message.params);
      return;
    }
    const { id, method } = message;
    if (!(method in machineMethods)) {
      this.send({ id, error: { message: `The machine server knows no method "${method}".` } });
      return;
    }
    const schema = machineMethods[method as MachineMethod];
    const params = schema.params.safeParse(message.params);
    if (!params.success) {
      this.send({ id, error: { message: `Bad parameters for ${method}: ${params.error.message}` } });
      return;
    }
    const handler = this.handlers[method as MachineMethod] as (params: unknown) => Promise<unknown>;
    // A handler that throws at once (fs.watch on a missing folder) is answered like one that rejects: it never ends the server.
    Promise.resolve()
      .then(() => handler(params.data))
      .then(
        (result) => this.send({ id, result }),
        (error: unknown) => {
          const code = (error as NodeJS.ErrnoException).code;
          this.send({
            id,
            error: { message: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) },
          });
        },
      );
  }

  private onNote(note: string, params: unknown): void {
    if (note === 'stdin') {
      const parsed = machineNotes.stdin.safeParse(params);
      const child = parsed.success ? this.processes.get(parsed.data.process) : undefined;
      if (parsed.success && child) {
        if (parsed.data.data !== undefined) {
          child.stdin.write(Buffer.from(parsed.data.data, 'base64'));
        }
        if (parsed.data.end) {
          child.stdin.end();
        }
      }
    } else if (note === 'shutdown') {
      this.onShutdown();
    } else if (note === 'basedTree') {
      const parsed = machineNotes.basedTree.safeParse(params);
      if (parsed.success) {
        this.trees.get(parsed.data.watch)?.based(parsed.data.token, parsed.data.checkpointId);
      }
    } else if (note === 'unwatchTree') {
      const parsed = machineNotes.unwatchTree.safeParse(params);
      if (parsed.success) {
        this.trees.get(parsed.data.watch)?.close();
        this.trees.delete(parsed.data.watch);
      }
    } else if (note === 'unwatch') {
      const parsed = machineNotes.unwatch.safeParse(params);
      if (parsed.success) {
        this.watches.get(parsed.data.watch)?.close();
        this.watches.delete(parsed.data.watch);
      }
    }
  }

  /** The tree watch a client names; ENOENT when this session holds none by that handle (the server was started again). */
  private tree(handle: number): TreeWatch {
    const tree = this.trees.get(handle);
    if (!tree) {
      throw Object.assign(new Error(`the machine server holds no watch ${handle}`), { code: 'ENOENT' });
    }
    return tree;
  }

  private makeHandlers(): Handlers {
    const machine = this.machine;
    return {
      hello: () =>
        Promise.resolve({
          version: MACHINE_PROTOCOL_VERSION,
          os: machine.platform.os,
          arch: machine.platform.arch,
          home: machine.home,
          dataDir: machine.dataDir,
          env: { ...machine.env },
          pid: process.pid,
        }),
      exec: ({ command, args, ...options }) => machine.exec(command, args, options),
      which: async ({ command, path }) => ({ path: (await machine.which(command, path)) ?? null }),
      spawn: async ({ process: handle, launch }) => {
        const child = machine.spawn(launch);
        // Errors on the pipes of an ended child are not the server's end.
        child.stdin.on('error', () => undefined);
        await child.spawned();
        this.processes.set(handle, child);
        for (const stream of ['stdout', 'stderr'] as const) {
          child[stream].on('data', (chunk: Buffer) =>
            this.send({ event: 'output', params: { process: handle, stream, data: chunk.toString('base64') } }),
          );
        }
        void child.exited.then(({ code, signal }) => {
          // Its output is sent before its end: both streams close before the exit is known.
          this.send({ event: 'exit', params: { process: handle, code, signal } });
          this.processes.delete(handle);
        });
        return { pid: child.pid ?? -1 };
      },
      hangUpChildren: async ({ process: handle }) => {
        await this.processes.get(handle)?.hangUpChildren();
        return {};
      },
      disposeProcess: async ({ process: handle }) => {
        await this.processes.get(handle)?.dispose();
        return {};
      },
      watch: ({ watch: handle, folder }) => {
        const watcher = machine.watchFolder(
          folder,
          ({ type, name }) => this.send({ event: 'changed', params: { watch: handle, type, name } }),
          (error) => {
            this.watches.delete(handle);
            this.send({ event: 'watchFailed', params: { watch: handle, code: error.code ?? null, message: error.message } });
          },
        );
        this.watches.set(handle, watcher);
        return Promise.resolve({});
      },
      watchTree: async ({ watch: handle, root, maxPaths }) => {
        this.trees.get(handle)?.close();
        const tree = machine.watchTree(root, maxPaths);
        this.trees.set(handle, tree);
        await tree.start();
        return {};
      },
      takeTree: async ({ watch: handle }) => {
        const taken = await this.tree(handle).take();
        return { known: knownOnTheWire(taken.known), token: taken.token };
      },
      peekTree: async ({ watch: handle }) => ({ known: knownOnTheWire(await this.tree(handle).peek()) }),
      readFile: async ({ path, maxBytes }) => {
        const read = await machine.readFile(path, maxBytes);
        return { data: read.data.toString('base64'), tooLarge: read.tooLarge };
      },
      writeConfined: async ({ root, relative, data, mode, owner }) => {
        await machine.writeConfined(root, relative, Buffer.from(data, 'base64'), mode, owner);
        return {};
      },
      stat: ({ path }) => machine.stat(path),
      realpath: async ({ path }) => ({ path: await machine.realpath(path) }),
      restore: async ({ folder, restores, contents, recordedReal, fresh }) => {
        const content = (hash: string): Buffer => {
          const data = contents[hash];
          if (data === undefined) {
            throw new Error(`the content ${hash} was not sent`);
          }
          return Buffer.from(data, 'base64');
        };
        if (fresh) {
          const entries = restores.flatMap((restore) => (restore.entry ? [restore.entry] : []));
          return await machine.populate(folder, entries, content);
        }
        return {
          failed: await machine.restore(
            folder,
            restores.map((restore) => ({ path: restore.path, entry: restore.entry })),
            content,
            recordedReal,
          ),
        };
      },
      cloneFiles: ({ folder, from, entries }) => machine.cloneFiles(folder, from, entries),
      list: async ({ path }) => ({ entries: await machine.list(path) }),
      mkdir: async ({ path, mode }) => {
        await machine.mkdir(path, mode);
        return {};
      },
      remove: async ({ path }) => {
        await machine.remove(path);
        return {};
      },
      rename: async ({ from, to }) => {
        await machine.rename(from, to);
        return {};
      },
      walk: async ({ folder }) => ({ files: await machine.walk(folder) }),
      unpackAgent: async ({ file, url, folder, cmd }) => ({ program: await machine.unpackAgent(file, url, folder, cmd) }),
      scan: async ({ folder, previous, previousRef, delta, scope, ...options }) => {
        const kept = this.manifests.get(folder);
        if (previousRef !== undefined && kept?.ref !== previousRef) {
          throw Object.assign(new Error(`the machine server no longer holds the manifest ${previousRef} of ${folder}`), { code: 'ESTALE' });
        }
        const base = previousRef !== undefined && kept ? kept.entries : new Map(previous.map((known) => [known.path, known]));
        const scanned = await machine.scan(folder, base, 'walk' in scope ? scope : { ...scope, paths: new Set(scope.paths) }, options);
        const entries = new Map(scanned.entries.map((found) => [found.path, found]));
        const ref = String(this.nextManifest++);
        this.manifests.set(folder, { ref, entries });
        const stored = scanned.stored.map((blob) => ({ ...blob, data: blob.data.toString('base64') }));
        if (!delta) {
          return { ...scanned, stored, ref };
        }
        return {
          ...scanned,
          entries: scanned.entries.filter((found) => !sameEntry(base.get(found.path), found)),
          removed: [...base.keys()].filter((known) => !entries.has(known)),
          stored,
          ref,
        };
      },
    };
  }
}

/** What a tree watch knows, as the protocol carries it (the paths as a list). */
function knownOnTheWire(known: Known): { since: string; paths: string[] } | { unknown: string } {
  return 'since' in known ? { since: known.since, paths: [...known.paths] } : known;
}
