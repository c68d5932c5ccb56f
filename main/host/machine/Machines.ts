/**
 * The machines a person can put a conversation on: this computer, the SSH hosts of their ssh
 * config (`Host` entries without wildcards), the ones they added in Settings › Machines (over ssh,
 * or reached by a command), the folders opened in their dev containers, and the containers Baton
 * started for attempts (not listed: each is its attempt's). An
 * SSH machine is opened when it is first needed (a conversation on it, a test from Settings) and
 * kept open; its state (connecting, connected, reconnecting, blocked and why) is pushed as it
 * changes. A blocked machine is not tried again by itself: the person trusts its key, or fixes
 * what was wrong and tests it again.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { InvalidRequestError, MachineBlockedError, NotFoundError } from '../../../app/errors.js';
import { thisComputerInfo, type MachineInfo } from '../../../app/ipc/machineRequests.js';
import { attemptOfBoxId, type AttemptContainers } from './AttemptContainers.js';
import { containerNameOf } from './containerEngine.js';
import { devContainerName, devMachineId, folderOfDevId, type DevContainers } from './DevContainers.js';
import { LOCAL_MACHINE_ID, type Machine } from './Machine.js';
import type { NodePackage } from './nodeForMachines.js';
import { CommandMachine, commandMachineId, nameOfCommandId } from './CommandMachine.js';
import { COMMANDS_SETTING, commandEntries, withCommand, type CommandEntry } from './commandMachines.js';
import { configHosts, DESTINATION, heldView, nodePackagesOf, type Held, type MachinesSshOptions } from './machineSources.js';
import type { RelayedMachine, RelayedMachineState } from './RelayedMachine.js';
import { destinationOfId, sshMachineId, SshMachine, type SshOptions } from './SshMachine.js';

export { configHosts, type MachinesSshOptions } from './machineSources.js';

/** One machine, as Settings and the new conversation's picker show it. */
export type MachineView = MachineInfo;
/** Where a machine is, as the person sees it. */
export type MachineStateName = MachineInfo['state'];

/** The setting that keeps the machines added in Baton. */
const ADDED_SETTING = 'machines.added';
const addedSchema = z.array(z.object({ destination: z.string() }));

/** How the machines are made and kept. */
export type MachinesOptions = {
  /** This computer. */
  local: Machine;
  /** Baton's ssh folder (`<data>/ssh`): control sockets and the host keys trusted in Baton. */
  stateDir: string;
  /** The machines added in Baton, read and written as a setting. */
  readAdded: () => unknown;
  writeAdded: (value: unknown) => void;
  /** The machines reached by a command (name and command), read and written as a setting. */
  readCommands?: () => unknown;
  writeCommands?: (value: CommandEntry[]) => void;
  /** ssh's config file (default: ssh's own, `~/.ssh/config`, which is also where hosts are listed from). */
  configFile?: string;
  /** The person's known-hosts files (default: ssh's own). */
  knownHosts?: readonly string[];
  /** The machine server bundle (default: the one built with Baton). */
  bundle?: string;
  /** How long a machine's server keeps its agents with no Baton attached. */
  idleLimitMs?: number;
  nodePackages?: Readonly<Record<string, NodePackage>>;
  /** The containers Baton starts for attempts (their machines are reached by a command too). */
  containers?: Pick<AttemptContainers, 'reach'>;
  /** The folders opened in their dev containers. */
  devContainers?: DevContainers;
  /** The commands of the agents Baton knows: each is looked up on a machine's PATH when it is opened. */
  commands?: () => readonly string[];
  /** Hears every change of a machine's state. */
  onChange?: (machine: MachineView) => void;
  log?: (message: string) => void;
};

/** The machines, and the connections to those in use. */
export class Machines {
  private readonly held = new Map<string, Held>();
  private disposed = false;

  constructor(private readonly options: MachinesOptions) {}

  /** This computer. */
  get local(): Machine {
    return this.options.local;
  }

  /** True for this computer (by its id, or by the id of the machine the host was given in its place). */
  isLocal(machineId: string): boolean {
    return machineId === LOCAL_MACHINE_ID || machineId === this.options.local.id;
  }

  /** Every machine: this computer first, then the added ones, then those of the ssh config. */
  list(): MachineView[] {
    const added = this.added();
    const fromConfig = this.configHosts().filter((host) => !added.includes(host));
    return [
      this.view(LOCAL_MACHINE_ID),
      ...added.map((destination) => this.viewOf(destination, 'added')),
      ...fromConfig.map((destination) => this.viewOf(destination, 'ssh-config')),
      ...this.commandMachines().map((entry) => this.viewOf(entry.name, 'command', entry.command)),
      ...(this.options.devContainers?.folders() ?? []).map((folder) => this.view(devMachineId(folder))),
    ];
  }

  /** One machine as it is now. */
  view(machineId: string): MachineView {
    if (this.isLocal(machineId)) {
      return thisComputerInfo(machineId, this.options.local.name);
    }
    const attemptId = attemptOfBoxId(machineId);
    if (attemptId) {
      return this.viewOf(containerNameOf(attemptId), 'command', undefined, machineId);
    }
    const folder = folderOfDevId(machineId);
    if (folder) {
      return this.viewOf(devContainerName(folder), 'command', `devcontainer up --workspace-folder ${folder}`, machineId);
    }
    const name = nameOfCommandId(machineId);
    if (name) {
      const entry = this.commandMachines().find((each) => each.name === name);
      if (!entry) {
        throw new NotFoundError('machine', machineId);
      }
      return this.viewOf(entry.name, 'command', entry.command);
    }
    const destination = this.destinationOf(machineId);
    return this.viewOf(destination, this.added().includes(destination) ? 'added' : 'ssh-config');
  }

  /** Adds a machine by `user@host[:port]` or an alias of the ssh config. */
  add(destination: string): MachineView {
    const wanted = destination.trim();
    if (!DESTINATION.test(wanted)) {
      throw new InvalidRequestError(
        `"${destination}" is not a machine Baton can reach: give user@host, user@host:port, or a Host alias of your ssh config.`,
      );
    }
    const added = this.added();
    if (!added.includes(wanted)) {
      this.options.writeAdded([...added, wanted].map((entry) => ({ destination: entry })));
    }
    const view = this.view(sshMachineId(wanted));
    this.options.onChange?.(view);
    return view;
  }

  /** Adds a machine reached by a command (`podman exec -i baton-dev`), called `name`. */
  addCommand(name: string, command: string): MachineView {
    const taken = [...this.added(), ...this.configHosts(), ...this.commandMachines().map((entry) => entry.name)];
    const entries = withCommand(this.commandMachines(), name, command, taken);
    this.options.writeCommands?.(entries);
    const view = this.view(commandMachineId(entries.at(-1)!.name));
    this.options.onChange?.(view);
    return view;
  }

  /** Removes an added machine, ending Baton's connection to it (and what ran there). */
  async remove(machineId: string): Promise<void> {
    const destination = this.destinationOf(machineId);
    if (attemptOfBoxId(machineId) || folderOfDevId(machineId)) {
      // An attempt's container (removed with its copy) or a dev container (the project's): not a setting here.
    } else if (nameOfCommandId(machineId)) {
      this.options.writeCommands?.(this.commandMachines().filter((entry) => entry.name !== destination));
    } else {
      this.options.writeAdded(
        this.added()
          .filter((entry) => entry !== destination)
          .map((entry) => ({ destination: entry })),
      );
    }
    const held = this.held.get(machineId);
    this.held.delete(machineId);
    const machine = held?.machine ?? (await held?.opening?.catch(() => undefined));
    await machine?.dispose();
  }

  /** Where `command` is on the open machine's PATH; undefined when it is not there (or the machine is not open). */
  executableOn(machineId: string, command: string): string | undefined {
    return this.held.get(machineId)?.executables?.get(command);
  }

  /**
   * The open machine of a place on another machine (undefined: this computer); this computer never
   * stands in for one that is not open. That one is refused: blocked, with why; otherwise it is
   * being connected (a connection is started), to try again once it is.
   */
  openOf(machineId: string): Machine | undefined {
    if (this.isLocal(machineId)) {
      return undefined;
    }
    const ready = this.ready(machineId);
    if (ready) {
      return ready;
    }
    const view = this.view(machineId);
    if (view.state === 'blocked' && view.reason) {
      throw new MachineBlockedError(view.name, view.reason, view.message ?? `${view.name} is blocked.`);
    }
    void this.connect(machineId).catch(() => undefined);
    throw new InvalidRequestError(`${view.name} is not connected yet (Baton is connecting to it); send again once it is.`);
  }

  /**
   * The host's machines: the ssh config from `ssh.configFile` or `BATON_SSH_CONFIG`, the person's
   * known-hosts files from `ssh.knownHosts` or `BATON_SSH_KNOWN_HOSTS` (colon-separated; empty:
   * none), Baton's own ssh folder in the data folder, the added machines in its settings.
   */
  static forHost(options: {
    local: Machine;
    dataDir: string;
    env: Readonly<Record<string, string | undefined>>;
    ssh?: MachinesSshOptions;
    settings: { getSetting<T>(key: string, schema: z.ZodType<T>, fallback: T): T; setSetting(key: string, value: unknown): void };
    commands: () => readonly string[];
    containers?: Pick<AttemptContainers, 'reach'>;
    devContainers?: DevContainers;
    onChange: (view: MachineView) => void;
    log: (message: string) => void;
  }): Machines {
    const { ssh, env, settings } = options;
    const configFile = ssh?.configFile ?? env.BATON_SSH_CONFIG;
    const knownHosts = ssh?.knownHosts ?? env.BATON_SSH_KNOWN_HOSTS?.split(':').filter(Boolean);
    return new Machines({
      local: options.local,
      stateDir: path.join(options.dataDir, 'ssh'),
      readAdded: () => settings.getSetting(ADDED_SETTING, z.unknown(), []),
      writeAdded: (value) => settings.setSetting(ADDED_SETTING, value),
      readCommands: () => settings.getSetting(COMMANDS_SETTING, z.unknown(), []),
      writeCommands: (value) => settings.setSetting(COMMANDS_SETTING, value),
      ...(configFile ? { configFile } : {}),
      ...(knownHosts ? { knownHosts } : {}),
      ...(ssh?.bundle ? { bundle: ssh.bundle } : {}),
      ...(ssh?.idleLimitMs !== undefined ? { idleLimitMs: ssh.idleLimitMs } : {}),
      ...nodePackagesOf(ssh?.nodePackages, env.BATON_NODE_PACKAGES, options.log),
      commands: options.commands,
      ...(options.containers ? { containers: options.containers } : {}),
      ...(options.devContainers ? { devContainers: options.devContainers } : {}),
      onChange: options.onChange,
      log: options.log,
    });
  }

  /** The machine when it is open now (this computer always is); undefined otherwise. */
  ready(machineId: string): Machine | undefined {
    return this.isLocal(machineId) ? this.options.local : this.held.get(machineId)?.machine;
  }

  /**
   * Opens the machine, or waits for the opening under way; rejects with a
   * {@link MachineBlockedError} saying why it cannot be used. A machine blocked before is tried
   * again only when `again` is set (the person tested it, or trusted its key).
   */
  async connect(machineId: string, again = false): Promise<Machine> {
    if (this.isLocal(machineId)) {
      return this.options.local;
    }
    if (this.disposed) {
      throw new InvalidRequestError('Baton is closing.');
    }
    const destination = this.destinationOf(machineId);
    const held = this.held.get(machineId) ?? {};
    this.held.set(machineId, held);
    if (held.machine) {
      return held.machine;
    }
    if (held.blocked && !again) {
      throw held.blocked;
    }
    if (!held.opening) {
      held.blocked = undefined;
      held.opening = this.open(machineId, destination, held);
      this.changed(machineId);
    }
    return held.opening;
  }

  /** Trusts the host key the machine offered (the fingerprint the person saw), then connects. */
  async trust(machineId: string, fingerprint: string): Promise<Machine> {
    const blocked = this.held.get(machineId)?.blocked;
    if (!blocked || blocked.reason !== 'host-key-unknown' || blocked.details?.fingerprint !== fingerprint) {
      throw new InvalidRequestError(
        `The host key shown for ${this.view(machineId).name} is no longer the one it offers; test the machine again to see its key.`,
      );
    }
    SshMachine.trustHostKey(this.options.stateDir, blocked);
    return this.connect(machineId, true);
  }

  /** Uploads Node to a machine blocked for having none (the offer the person saw), then connects. */
  async uploadNode(machineId: string): Promise<Machine> {
    const held = this.held.get(machineId);
    if (!held?.blocked || held.blocked.reason !== 'no-node' || !held.blocked.details?.nodeOffer) {
      throw new InvalidRequestError(
        `${this.view(machineId).name} is not waiting for Node to be uploaded; test the machine again to see why.`,
      );
    }
    held.uploadNode = true;
    return this.connect(machineId, true);
  }

  /** Ends every connection (and, as Baton says so, what ran on those machines). */
  async dispose(): Promise<void> {
    this.disposed = true;
    const all = [...this.held.values()];
    this.held.clear();
    await Promise.all(
      all.map(async (held) => {
        const machine = held.machine ?? (await held.opening?.catch(() => undefined));
        await machine?.dispose();
      }),
    );
  }

  private async open(machineId: string, destination: string, held: Held): Promise<RelayedMachine> {
    try {
      const opening = {
        ...this.sshOptions(destination),
        ...(held.uploadNode ? { uploadNode: true } : {}),
        onProgress: (what: string) => {
          held.progress = what;
          this.changed(machineId);
        },
      };
      const command = attemptOfBoxId(machineId)
        ? await this.containerOf(machineId)
        : folderOfDevId(machineId)
          ? await this.devContainerUp(machineId, held)
          : nameOfCommandId(machineId)
            ? this.commandMachines().find((entry) => entry.name === destination)
            : undefined;
      const machine = command
        ? await CommandMachine.open({ ...opening, name: command.name, command: command.command, machineId })
        : await SshMachine.open(opening);
      if (this.disposed || this.held.get(machineId) !== held) {
        await machine.dispose();
        throw new InvalidRequestError(`${destination} was removed while Baton connected to it.`);
      }
      held.executables = await this.findCommands(machine);
      held.machine = machine;
      machine.onState((state) => this.onState(machineId, held, state));
      this.options.log?.(`connected to ${destination}`);
      return machine;
    } catch (error) {
      if (error instanceof MachineBlockedError) {
        held.blocked = error;
        this.options.log?.(`${destination} is blocked (${error.reason}): ${error.message}`);
      }
      throw error;
    } finally {
      held.opening = undefined;
      held.progress = undefined;
      held.uploadNode = undefined;
      this.changed(machineId);
    }
  }

  /** Opens a folder in its dev container (it has a config): connected, with where its workspace is there; or blocked with why. */
  async openDevContainer(folder: string): Promise<{ machine: MachineView; workspace: string | null }> {
    if (!this.options.devContainers) {
      throw new InvalidRequestError('This Baton cannot open dev containers.');
    }
    await this.options.devContainers.add(folder);
    const machineId = devMachineId(folder);
    await this.connect(machineId, true).catch((error: unknown) => {
      if (!(error instanceof MachineBlockedError)) {
        throw error;
      }
    });
    const machine = this.view(machineId);
    return { machine, workspace: machine.workspace };
  }

  /** Brings a dev container up (its output kept as the machine's log, its last line as progress) and says how to reach it. */
  private async devContainerUp(machineId: string, held: Held): Promise<CommandEntry> {
    const log: string[] = [];
    held.log = log;
    const up = await this.options.devContainers!.up(folderOfDevId(machineId), (line) => {
      log.push(line);
      log.splice(0, Math.max(0, log.length - 200));
      held.progress = line;
      this.changed(machineId);
    });
    held.workspace = up.remoteWorkspaceFolder;
    return { name: up.name, command: up.command };
  }

  /** How to reach the container of an attempt (Baton started it). */
  private async containerOf(machineId: string): Promise<CommandEntry> {
    if (!this.options.containers) {
      throw new NotFoundError('machine', machineId);
    }
    return this.options.containers.reach(machineId);
  }

  /** The agents' commands on the machine's PATH, looked up at once. */
  private async findCommands(machine: Machine): Promise<Map<string, string | undefined>> {
    const commands = [...new Set(this.options.commands?.() ?? [])];
    const found = await Promise.all(commands.map(async (command) => machine.which(command).catch(() => undefined)));
    return new Map(commands.map((command, index) => [command, found[index]]));
  }

  private onState(machineId: string, held: Held, state: RelayedMachineState): void {
    held.reconnecting = state.state === 'reconnecting' ? { since: state.since, why: state.why } : undefined;
    if (state.state === 'blocked') {
      held.blocked = state.error;
    }
    if (state.state === 'blocked' || state.state === 'closed') {
      held.machine = undefined;
    }
    // A machine removed meanwhile (its connection ends as it goes) has no state left to tell.
    if (this.held.get(machineId) === held) {
      this.changed(machineId);
    }
  }

  private changed(machineId: string): void {
    if (!this.disposed) {
      this.options.onChange?.(this.view(machineId));
    }
  }

  /** A machine's view: its destination (a command machine's name, with its `command`), where it comes from, its state. */
  private viewOf(
    destination: string,
    source: 'ssh-config' | 'added' | 'command',
    command?: string,
    machineId = source === 'command' ? commandMachineId(destination) : sshMachineId(destination),
  ): MachineView {
    return heldView(this.held.get(machineId), { machineId, destination, source, command });
  }

  private destinationOf(machineId: string): string {
    const attemptId = attemptOfBoxId(machineId);
    if (attemptId) {
      return containerNameOf(attemptId);
    }
    const folder = folderOfDevId(machineId);
    if (folder) {
      if (!this.options.devContainers?.folders().includes(folder)) {
        throw new NotFoundError('machine', machineId);
      }
      return devContainerName(folder);
    }
    const name = nameOfCommandId(machineId);
    if (name) {
      if (!this.commandMachines().some((entry) => entry.name === name)) {
        throw new NotFoundError('machine', machineId);
      }
      return name;
    }
    const destination = destinationOfId(machineId);
    if (!destination || (!this.added().includes(destination) && !this.configHosts().includes(destination))) {
      throw new NotFoundError('machine', machineId);
    }
    return destination;
  }

  private commandMachines(): CommandEntry[] {
    return commandEntries(this.options.readCommands?.());
  }

  private added(): string[] {
    const parsed = addedSchema.safeParse(this.options.readAdded() ?? []);
    return parsed.success ? parsed.data.map((entry) => entry.destination).filter((entry) => DESTINATION.test(entry)) : [];
  }

  private configHosts(): string[] {
    const file = this.options.configFile ?? path.join(os.homedir(), '.ssh', 'config');
    try {
      return existsSync(file) ? configHosts(readFileSync(file, 'utf8')) : [];
    } catch (error) {
      this.options.log?.(`could not read the ssh config ${file}: ${String(error)}`);
      return [];
    }
  }

  private sshOptions(destination: string): SshOptions {
    const { local, stateDir, configFile, knownHosts, bundle, idleLimitMs, nodePackages } = this.options;
    return {
      destination,
      local,
      stateDir,
      ...(configFile ? { configFile } : {}),
      ...(knownHosts ? { knownHosts } : {}),
      ...(bundle ? { bundle } : {}),
      ...(idleLimitMs !== undefined ? { idleLimitMs } : {}),
      ...(nodePackages ? { nodePackages } : {}),
    };
  }
}
