/**
 * A machine reached with the system `ssh`: the person's own config (aliases, `ProxyJump`,
 * `IdentityFile`), `ssh-agent` and `known_hosts` apply, and one multiplexed connection per
 * machine (a ControlMaster socket in Baton's ssh folder) carries every channel. The machine
 * server (one bundled file, `dist/machine-server/server.mjs`) is uploaded over that connection to
 * `~/.baton/machine/<its digest>/` when it is not there yet, and run with the remote's `node`;
 * the machine protocol then travels over the channel's standard input and output.
 *
 * Host keys are checked, never accepted on their own: ssh runs with `StrictHostKeyChecking=yes`
 * against the person's known hosts and Baton's own file of keys the person trusted. An unknown key
 * blocks the machine with its SHA256 fingerprint until the person trusts it ({@link trustHostKey});
 * a changed key and a refused log-in block it with ssh's reason. Nothing is retried on its own.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, appendFileSync, rmSync, existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MachineBlockedError } from '../../../app/errors.js';
import type { Machine, MachineProcess } from './Machine.js';
import { describeExit } from './ProcessGroup.js';
import { fetchNodePackage, megabytesOf, NODE_FOR_MACHINES, type NodePackage, unpackNodeCommand, uploadedNode } from './nodeForMachines.js';
import { RemoteMachine } from './RemoteMachine.js';
import { ResumableEnd, type Greeting } from './resumable.js';

/** The bundled server, built beside the host (`dist/machine-server/server.mjs`). */
export const SERVER_BUNDLE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'machine-server', 'server.mjs');

/** The oldest Node the server runs on. */
const NODE_MAJOR = 18;
/** How long the first connection may take (a slow network, a jump host). */
const CONNECT_TIMEOUT_S = 20;

/** What an SSH machine's id starts with; the destination follows. */
const SSH_ID = 'ssh:';

/** The id of the SSH machine for a destination. */
export function sshMachineId(destination: string): string {
  return `${SSH_ID}${destination}`;
}

/** The destination an SSH machine's id names ('' for an id of any other machine). */
export function destinationOfId(machineId: string): string {
  return machineId.startsWith(SSH_ID) ? machineId.slice(SSH_ID.length) : '';
}

/** Where and how to reach a machine over ssh. */
export type SshOptions = {
  /** What the person gave: an alias from their ssh config, `user@host`, or `user@host:port`. */
  destination: string;
  /** What the machine is called (default: the destination). */
  name?: string;
  /** This computer, which runs `ssh`. */
  local: Machine;
  /** Baton's ssh folder: control sockets and the host keys the person trusted (`<data>/ssh`). */
  stateDir: string;
  /** ssh's config file (`-F`); default: ssh's own choice (`~/.ssh/config`). */
  configFile?: string;
  /** The person's known-hosts files, read and never written (default: ssh's own). */
  knownHosts?: readonly string[];
  /** The server bundle to upload (default: {@link SERVER_BUNDLE}). */
  bundle?: string;
  /** The `node` to run there (default: `node` on the PATH of a non-interactive ssh session there). */
  remoteNode?: string;
  /** How long the server there keeps its processes with no Baton attached (default: a day). */
  idleLimitMs?: number;
  /** Upload Node there when it has none (the person agreed to the offer); else such a machine is blocked with the offer. */
  uploadNode?: boolean;
  /** The Node packages Baton may upload, by `uname -sm` there (default: {@link NODE_FOR_MACHINES}). */
  nodePackages?: Readonly<Record<string, NodePackage>>;
  /** Told what a slow step of opening is doing (fetching and uploading Node). */
  onProgress?: (what: string) => void;
};

/** A word of a remote sh command, single-quoted. */
function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The `ssh` arguments that name the destination (`-p` for `user@host:port`). */
export function destinationArgs(destination: string): string[] {
  const withPort = /^(.+@)?(\[[^\]]+\]|[^:@\s]+):(\d+)$/.exec(destination);
  if (withPort) {
    return ['-p', withPort[3]!, `${withPort[1] ?? ''}${withPort[2]!.replace(/^\[|\]$/g, '')}`];
  }
  return [destination];
}

/** A path in ssh's own option syntax (quoted, so that a space does not split it). */
function quoted(file: string): string {
  return `"${file.replace(/"/g, '')}"`;
}

/**
 * The longest control socket path used: ssh adds a 17-character suffix while it sets one up, and a
 * socket's path may have 104-108 bytes.
 */
const CONTROL_PATH_MOST = 88;

/**
 * Where the machine's shared connection (its ControlMaster socket) lives: in Baton's ssh folder,
 * or, when that path is too long for a socket, in a folder of this user's alone in the system's
 * temporary folder (made 0700, and refused when someone else owns it).
 */
export function controlPath(options: Pick<SshOptions, 'stateDir' | 'destination' | 'configFile'>): string {
  const name = `cm-${createHash('sha256')
    .update(`${options.configFile ?? ''}\0${options.destination}\0${options.stateDir}`)
    .digest('hex')
    .slice(0, 16)}`;
  const inState = path.join(options.stateDir, name);
  if (inState.length <= CONTROL_PATH_MOST) {
    return inState;
  }
  const short = path.join(os.tmpdir(), `baton-ssh-${process.getuid?.() ?? 'user'}`);
  mkdirSync(short, { recursive: true, mode: 0o700 });
  const found = statSync(short);
  if (found.uid !== process.getuid?.() || (found.mode & 0o077) !== 0) {
    throw new MachineBlockedError(
      options.destination,
      'unreachable',
      `${short} is not this user's alone; Baton does not keep its ssh connections there.`,
    );
  }
  const inTemp = path.join(short, name);
  if (inTemp.length > CONTROL_PATH_MOST) {
    throw new MachineBlockedError(options.destination, 'unreachable', `no folder short enough for ssh's connection socket (${inTemp})`);
  }
  return inTemp;
}

/** The SHA256 fingerprint of a base64 public key, as `ssh-keygen -l` prints it. */
export function fingerprintOf(base64Key: string): string {
  return `SHA256:${createHash('sha256').update(Buffer.from(base64Key, 'base64')).digest('base64').replace(/=+$/, '')}`;
}

/** What a failed ssh run means: which block, and ssh's own words. */
function blockOf(name: string, stderr: string, offered: { line: string; type: string; key: string } | undefined): MachineBlockedError {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('debug') && !/^[@]+$/.test(line));
  const said = lines.at(-1) ?? 'ssh ended without saying why';
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(stderr)) {
    const offending = /Offending \S+ key in (.+)/.exec(stderr)?.[1]?.trim();
    return new MachineBlockedError(
      name,
      'host-key-changed',
      `${name} is blocked: its host key has changed since it was trusted${offending ? ` (the old key is in ${offending})` : ''}. This can mean someone is between you and it; if the machine was reinstalled, remove the old key and connect again.`,
      offered ? { fingerprint: fingerprintOf(offered.key) } : {},
    );
  }
  if (/Host key verification failed|host key is known/i.test(stderr)) {
    return new MachineBlockedError(
      name,
      'host-key-unknown',
      offered
        ? `${name} offers a host key Baton has not seen: ${offered.type} ${fingerprintOf(offered.key)}. Trust it only if it is the key the machine's owner gave you.`
        : `${name}'s host key could not be checked: ${said}`,
      offered ? { fingerprint: fingerprintOf(offered.key), keyType: offered.type, knownHostsLine: offered.line } : {},
    );
  }
  if (/Permission denied|Too many authentication failures|no mutual signature/i.test(stderr)) {
    return new MachineBlockedError(name, 'authentication', `${name} refused the log-in (authentication): ${said}`);
  }
  return new MachineBlockedError(name, 'unreachable', `${name} could not be reached: ${said}`);
}

/** Where an SSH machine is: connected, making its channel again (since when, which try), blocked (why), or closed. */
export type SshMachineState =
  | { state: 'connected' }
  | { state: 'reconnecting'; since: number; attempt: number; why: string }
  | { state: 'blocked'; error: MachineBlockedError }
  | { state: 'closed' };

/** The first wait before making the channel again, and the longest. */
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MOST_MS = 5_000;

/** A machine behind `ssh`, its server durable: the agents there outlive a dropped channel. */
export class SshMachine extends RemoteMachine {
  /** Every message both ways numbered and kept until read, across channels. */
  private readonly link = new ResumableEnd((message) => this.receiveMessage(message));
  /** This host's session with the durable server (a new host is a new session: the server starts fresh). */
  private readonly session = randomUUID();
  private channel: MachineProcess | undefined;
  private closing = false;
  /** The tries to make the channel again after a drop, while they run. */
  private rejoining: Promise<void> | undefined;
  private current: SshMachineState = { state: 'connected' };
  private readonly listeners = new Set<(state: SshMachineState) => void>();
  /** How many times the channel was made again after a drop. */
  reconnects = 0;

  private constructor(
    private readonly options: SshOptions,
    name: string,
    /** The server's command there. */
    private readonly serverCommand: string,
  ) {
    super(sshMachineId(options.destination), name);
  }

  /** Where it is now. */
  get state(): SshMachineState {
    return this.current;
  }

  /** Hears every change of state; returns the way to stop. */
  onState(listener: (state: SshMachineState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The local `ssh` process that carries the channel now (its pid), if one does. */
  get channelPid(): number | undefined {
    return this.channel?.pid;
  }

  protected override sendMessage(message: object): void {
    this.link.send(message);
  }

  protected override endTransport(): void {
    this.link.detach();
  }

  private setState(state: SshMachineState): void {
    this.current = state;
    for (const listener of this.listeners) {
      listener(state);
    }
  }

  /** Makes a channel to the durable server (the relay starts it when none runs) and resumes the link over it. */
  private async join(first: boolean): Promise<void> {
    const channel = this.options.local.spawn({
      command: 'ssh',
      args: [...SshMachine.args(this.options), '-T', ...destinationArgs(this.options.destination), this.serverCommand],
      env: { ...this.options.local.env },
      cwd: this.options.local.home,
    });
    channel.stdin.on('error', () => undefined);
    await channel.spawned();
    let greeting: Greeting;
    try {
      greeting = await Promise.race([
        this.link.attach(channel.stdout, channel.stdin, { first: { session: this.session } }),
        channel.exited.then((exit): never => {
          throw new Error(`ssh ended (${describeExit(exit)}) before the machine server answered: ${channel.lastErrorLines(3)}`);
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
        await SshMachine.run(this.options, 'true');
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

  /** The host keys the person trusted in Baton (ssh reads them; Baton writes only here). */
  static knownHostsFile(stateDir: string): string {
    return path.join(stateDir, 'known_hosts');
  }

  /** Trusts the key a {@link MachineBlockedError} of reason `host-key-unknown` offered (the person agreed). */
  static trustHostKey(stateDir: string, blocked: MachineBlockedError): void {
    const line = blocked.details?.knownHostsLine;
    if (blocked.reason !== 'host-key-unknown' || typeof line !== 'string') {
      throw new Error(`Only a host key that was offered and not yet known can be trusted (${blocked.message}).`);
    }
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    appendFileSync(SshMachine.knownHostsFile(stateDir), `${line}\n`, { mode: 0o600 });
  }

  /**
   * Opens the machine: checks the host key and the log-in, finds `node` there, uploads the server if it is
   * not there yet, starts it and greets it. Rejects with a {@link MachineBlockedError} saying why.
   */
  static async open(options: SshOptions): Promise<SshMachine> {
    try {
      return await SshMachine.openOnce(options);
    } catch (error) {
      // The shared connection, if one was made, does not outlive a failed open.
      await SshMachine.closeConnection(options);
      throw error;
    }
  }

  private static async openOnce(options: SshOptions): Promise<SshMachine> {
    const name = options.name ?? options.destination;
    mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
    const bundle = readFileSync(options.bundle ?? SERVER_BUNDLE);
    const digest = createHash('sha256').update(bundle).digest('hex').slice(0, 16);
    const folder = `.baton/machine/${digest}`;
    let node = shellWord(options.remoteNode ?? 'node');
    const packages = options.remoteNode ? {} : (options.nodePackages ?? NODE_FOR_MACHINES);
    const ours = [...new Set(Object.values(packages).map((pkg) => pkg.version))];

    const probe = await SshMachine.run(
      options,
      [
        `printf 'node=%s\\n' "$(${node} --version 2>/dev/null)"`,
        `printf 'uname=%s\\n' "$(uname -sm 2>/dev/null)"`,
        ...ours.map((version) => `printf 'ours-${version}=%s\\n' "$("$HOME/${uploadedNode(version)}" --version 2>/dev/null)"`),
        `if [ -f "$HOME/${folder}/server.mjs" ]; then echo present=yes; else echo present=no; fi`,
      ].join('; '),
    );
    const major = (found: string | undefined): number => Number(/^v(\d+)\./.exec(found ?? '')?.[1] ?? 0);
    const version = /^node=(v\d+\S*)$/m.exec(probe)?.[1];
    if (major(version) < NODE_MAJOR) {
      const pkg = packages[/^uname=(.*)$/m.exec(probe)?.[1]?.trim() ?? ''];
      if (pkg && major(new RegExp(`^ours-${pkg.version.replace(/\./g, '\\.')}=(v\\S+)$`, 'm').exec(probe)?.[1]) >= NODE_MAJOR) {
        node = `"$HOME/${uploadedNode(pkg.version)}"`;
      } else if (pkg && options.uploadNode) {
        options.onProgress?.(`Fetching Node ${pkg.version} for ${name} from the npm registry (${megabytesOf(pkg)} MB)…`);
        const tarball = await fetchNodePackage(options.local, path.join(options.stateDir, 'node'), pkg, name);
        options.onProgress?.(`Uploading Node ${pkg.version} to ${name} (${megabytesOf(pkg)} MB)…`);
        await SshMachine.run(options, unpackNodeCommand(pkg.version), tarball);
        node = `"$HOME/${uploadedNode(pkg.version)}"`;
      } else {
        const has = version ? `Node ${version}` : `no ${options.remoteNode ?? 'Node on the PATH of a non-interactive ssh session'}`;
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
    }
    if (/^present=no$/m.test(probe)) {
      await SshMachine.run(
        options,
        `umask 077 && mkdir -p "$HOME/${folder}" && cat > "$HOME/${folder}/server.mjs.part" && mv "$HOME/${folder}/server.mjs.part" "$HOME/${folder}/server.mjs"`,
        bundle,
      );
    }
    const idle = options.idleLimitMs === undefined ? '' : ` --idle-ms ${Math.round(options.idleLimitMs)}`;
    const machine = new SshMachine(options, name, `exec ${node} "$HOME/${folder}/server.mjs" --attach "$HOME/${folder}/run"${idle}`);
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
   * Ends the durable server there (and every process it ran: Baton says so), the channel, and the
   * shared connection.
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
    await SshMachine.closeConnection(this.options);
  }

  /** Ends the multiplexed connection to a machine (its ControlMaster), if one runs. */
  static async closeConnection(options: SshOptions): Promise<void> {
    await options.local
      .exec('ssh', [...SshMachine.args(options), '-O', 'exit', ...destinationArgs(options.destination)], { timeoutMs: 10_000 })
      .catch(() => undefined);
  }

  /** The options of every ssh run: the person's config, strict host keys, no prompts, the shared connection. */
  private static args(options: SshOptions): string[] {
    const known = [...(options.knownHosts ?? ['~/.ssh/known_hosts', '~/.ssh/known_hosts2']), SshMachine.knownHostsFile(options.stateDir)];
    return [
      ...(options.configFile ? ['-F', options.configFile] : []),
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      `UserKnownHostsFile=${known.map(quoted).join(' ')}`,
      '-o',
      `ConnectTimeout=${CONNECT_TIMEOUT_S}`,
      '-o',
      'ControlMaster=auto',
      '-o',
      `ControlPath=${quoted(controlPath(options))}`,
      '-o',
      'ControlPersist=600',
      '-o',
      'ServerAliveInterval=15',
    ];
  }

  /**
   * Runs one command there (`input` on its standard input) and returns what it printed; a failure
   * of ssh itself (exit 255) is a block, with the key the server offered when it was not known.
   */
  private static async run(options: SshOptions, command: string, input?: Buffer): Promise<string> {
    const name = options.name ?? options.destination;
    // The key the server offers, written by ssh's KnownHostsCommand (which adds no key itself).
    const offeredFile = path.join(options.stateDir, `offered-${process.pid}-${Date.now()}`);
    const capture = `KnownHostsCommand=/bin/sh -c "test -n \\"$3\\" && echo \\"$1 $2 $3\\" >> \\"$0\\"; exit 0" ${quoted(offeredFile)} %H %t %K`;
    const child = options.local.spawn({
      command: 'ssh',
      args: [...SshMachine.args(options), '-o', capture, ...destinationArgs(options.destination), command],
      env: { ...options.local.env },
      cwd: options.local.home,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin.on('error', () => undefined);
    try {
      await child.spawned();
    } catch (error) {
      throw new MachineBlockedError(name, 'unreachable', `ssh could not be started on this computer: ${(error as Error).message}`);
    }
    child.stdin.end(input);
    const exit = await child.exited;
    const offered = existsSync(offeredFile) ? readFileSync(offeredFile, 'utf8').trim().split('\n').at(-1) : undefined;
    rmSync(offeredFile, { force: true });
    const stderr = Buffer.concat(err).toString('utf8');
    if (exit.code === 255 || exit.code === null) {
      const [host, type, key] = offered?.split(' ') ?? [];
      throw blockOf(name, stderr, host && type && key ? { line: `${host} ${type} ${key}`, type, key } : undefined);
    }
    if (exit.code !== 0) {
      throw new MachineBlockedError(
        name,
        'server',
        `A command on ${name} failed (exit ${exit.code}): ${stderr.trim().split('\n').at(-1) ?? ''}`,
      );
    }
    return Buffer.concat(out).toString('utf8');
  }
}
