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
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, appendFileSync, rmSync, existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MachineBlockedError } from '../../../app/errors.js';
import type { Machine } from './Machine.js';
import { RelayedMachine, runToEnd, SERVER_BUNDLE, type Carrier, type RelayedMachineState, type RelayedOptions } from './RelayedMachine.js';

export { SERVER_BUNDLE };
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

/** Where and how to reach a machine over ssh (and what opening any relayed machine takes). */
export type SshOptions = Omit<RelayedOptions, 'machineId' | 'name' | 'pathOf'> & {
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
};

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

/** Where an SSH machine is (see {@link RelayedMachineState}). */
export type SshMachineState = RelayedMachineState;

/** A machine behind `ssh`, its server durable: the agents there outlive a dropped channel. */
export class SshMachine extends RelayedMachine {
  private constructor(
    readonly options: SshOptions,
    name: string,
    carrier: Carrier,
    serverScript: string,
  ) {
    super(sshMachineId(options.destination), name, carrier, serverScript);
  }

  /** How ssh carries this machine: one-shot commands and channels over the shared connection. */
  private static carrier(options: SshOptions): Carrier {
    return {
      name: 'ssh',
      run: (script, input) => SshMachine.run(options, script, input),
      channel: (script) =>
        options.local.spawn({
          command: 'ssh',
          args: [...SshMachine.args(options), '-T', ...destinationArgs(options.destination), script],
          env: { ...options.local.env },
          cwd: options.local.home,
        }),
      close: () => SshMachine.closeConnection(options),
    };
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
      const carrier = SshMachine.carrier(options);
      const name = options.name ?? options.destination;
      return await RelayedMachine.openOver(
        carrier,
        { ...options, machineId: sshMachineId(options.destination), name, pathOf: 'of a non-interactive ssh session' },
        (serverScript) => new SshMachine(options, name, carrier, serverScript),
      );
    } catch (error) {
      // The shared connection, if one was made, does not outlive a failed open.
      await SshMachine.closeConnection(options);
      throw error;
    }
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
    const { exit, stdout, stderr } = await runToEnd(
      child,
      input,
      (error) => new MachineBlockedError(name, 'unreachable', `ssh could not be started on this computer: ${error.message}`),
    );
    const offered = existsSync(offeredFile) ? readFileSync(offeredFile, 'utf8').trim().split('\n').at(-1) : undefined;
    rmSync(offeredFile, { force: true });
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
    return stdout;
  }
}
