/**
 * The containers Baton starts itself: one per attempt of "Ask several agents" when the person asks
 * for containers, from the image they name, with the attempt's copy mounted at its own path and no
 * network unless they allow it. Each is a machine reached by a command (`<engine> exec -i <name>`,
 * id `box:<attemptId>`), so the attempt's agent, files, terminals and checkpoints are there as on
 * any machine. A container is labelled (`baton.attempt`, `baton.conversation`, `baton.copy`) and
 * removed with its copy; one a crash left behind (its copy gone) is found by its label at the next
 * start and listed for removal in Settings › Machines.
 */
import { MachineBlockedError, NotFoundError } from '../../../app/errors.js';
import type { ContainersInfo } from '../../../app/ipc/machineRequests.js';
import { commandWords } from './CommandMachine.js';
import { z } from 'zod';
import {
  containerNameOf,
  ENGINE_SETTING,
  engineSettingSchema,
  RUN_OPTIONS_SETTING,
  execCommandOf,
  findEngine,
  listStarted,
  removeContainer,
  restartContainer,
  startContainer,
  type Engine,
  type StartedContainer,
} from './containerEngine.js';
import { DEV_CONTAINERS_SETTING, DevContainers } from './DevContainers.js';
import { existsOn, type Machine } from './Machine.js';

/** The setting that says Baton has started a container here once (so one may be left behind). */
const EVER_STARTED_SETTING = 'containers.everStarted';

/** What a started container's machine id starts with; the attempt id follows. */
const BOX_ID = 'box:';

/** The machine id of an attempt's container. */
export function boxMachineId(attemptId: string): string {
  return `${BOX_ID}${attemptId}`;
}

/** The attempt id of a container's machine id ('' for any other machine). */
export function attemptOfBoxId(machineId: string): string {
  return machineId.startsWith(BOX_ID) ? machineId.slice(BOX_ID.length) : '';
}

/** One attempt's container, as asked for. */
export type AttemptBox = {
  attemptId: string;
  /** The attempt's conversation. */
  conversationId: string;
  /** The attempt's copy (mounted at its own path, read-write). */
  copy: string;
  /** More folders it needs at their own paths: read-write (a worktree's own git folder) and read-only (the repository's). */
  folders?: readonly string[];
  readOnly?: readonly string[];
  image: string;
  network: boolean;
};

/** A container Baton started, with whether it is still needed. */
export type ListedContainer = StartedContainer & { leftBehind: boolean };

export type AttemptContainersOptions = {
  local: Machine;
  engine: () => z.infer<typeof engineSettingSchema>;
  runOptions: () => string;
  /** Whether Baton ever started a container here (absent: taken as yes): until it has, a start does not ask the engine. */
  everStarted?: () => boolean;
  /** Writes a setting (absent: the settings are not changed here). */
  setSetting?: (key: string, value: unknown) => void;
  log: (message: string) => void;
};

/** The containers of attempts. */
export class AttemptContainers {
  constructor(private readonly options: AttemptContainersOptions) {}

  /** The host's: the engine and run options from its settings (Settings › Machines). */
  static forHost(
    local: Machine,
    settings: { getSetting<T>(key: string, schema: z.ZodType<T>, fallback: T): T; setSetting(key: string, value: unknown): void },
    log: (message: string) => void,
  ): AttemptContainers {
    return new AttemptContainers({
      local,
      engine: () => settings.getSetting(ENGINE_SETTING, engineSettingSchema, ''),
      runOptions: () => settings.getSetting(RUN_OPTIONS_SETTING, z.string(), ''),
      everStarted: () => settings.getSetting(EVER_STARTED_SETTING, z.boolean(), false),
      setSetting: (key, value) => settings.setSetting(key, value),
      log,
    });
  }

  /** What Settings › Machines shows: the engine found (or why none), its settings, and the containers Baton started. */
  async info(): Promise<ContainersInfo> {
    let engine: string | null = null;
    let problem: string | null = null;
    let listed: ListedContainer[] = [];
    try {
      const found = await this.engine();
      engine = `${found.kind} (${found.program})`;
      listed = await this.list();
    } catch (error) {
      problem = (error as Error).message;
    }
    return {
      engine,
      problem,
      settings: { engine: this.options.engine(), runOptions: this.options.runOptions() },
      containers: listed.map((container) => ({
        name: container.name,
        attemptId: container.labels.attempt,
        conversationId: container.labels.conversation,
        copy: container.labels.copy,
        running: container.running,
        leftBehind: container.leftBehind,
      })),
    };
  }

  /** Sets the engine and the run options (refused with why when the options cannot be read as typed). */
  setSettings(settings: { engine?: z.infer<typeof engineSettingSchema> | undefined; runOptions?: string | undefined }): void {
    if (settings.runOptions !== undefined && settings.runOptions.trim() !== '') {
      commandWords(settings.runOptions);
    }
    if (settings.engine !== undefined) {
      this.options.setSetting?.(ENGINE_SETTING, settings.engine);
    }
    if (settings.runOptions !== undefined) {
      this.options.setSetting?.(RUN_OPTIONS_SETTING, settings.runOptions.trim());
    }
  }

  /** The engine as set now; refused with what is missing and how to get it. */
  engine(): Promise<Engine> {
    return findEngine(this.options.local, this.options.engine());
  }

  /** Starts an attempt's container; its machine id. Rejects with the engine's own words. */
  async start(box: AttemptBox): Promise<string> {
    const engine = await this.engine();
    const name = containerNameOf(box.attemptId);
    await startContainer(this.options.local, engine, {
      name,
      image: box.image,
      labels: { attempt: box.attemptId, conversation: box.conversationId, copy: box.copy },
      folders: [box.copy, ...(box.folders ?? [])],
      readOnly: box.readOnly ?? [],
      network: box.network,
      runOptions: this.options.runOptions(),
    });
    this.options.log(`started container ${name} (${box.image}${box.network ? '' : ', no network'}) for attempt ${box.attemptId}`);
    this.options.setSetting?.(EVER_STARTED_SETTING, true);
    return boxMachineId(box.attemptId);
  }

  /**
   * How to reach an attempt's container: its name and the command. One stopped since (this
   * computer restarted) is started again; one that is gone blocks its machine, saying so.
   */
  async reach(machineId: string): Promise<{ name: string; command: string }> {
    const attemptId = attemptOfBoxId(machineId);
    if (!attemptId) {
      throw new NotFoundError('machine', machineId);
    }
    const engine = await this.engine();
    const name = containerNameOf(attemptId);
    const found = (await listStarted(this.options.local, engine)).find((container) => container.name === name);
    if (!found) {
      throw new MachineBlockedError(
        name,
        'unreachable',
        `The container of this attempt (${name}) is gone (removed outside Baton); its copy of the folder is still there.`,
      );
    }
    if (!found.running) {
      await restartContainer(this.options.local, engine, name);
    }
    return { name, command: execCommandOf(engine, name) };
  }

  /** Removes the containers of these attempts (those not there are no error); rejects with the first that could not be. */
  async remove(attemptIds: readonly string[]): Promise<void> {
    if (attemptIds.length === 0) {
      return;
    }
    const engine = await this.engine();
    for (const attemptId of attemptIds) {
      const name = containerNameOf(attemptId);
      await removeContainer(this.options.local, engine, name);
    }
  }

  /** Removes one listed container by its name (the person asked, in Settings › Machines). */
  async removeNamed(name: string): Promise<void> {
    const listed = await this.list();
    if (!listed.some((container) => container.name === name)) {
      throw new NotFoundError('container', name);
    }
    await removeContainer(this.options.local, await this.engine(), name);
  }

  /**
   * Every container Baton started, each marked left behind when its copy is gone (a crash between
   * removing the copy and the container). Empty when there is no engine here.
   */
  async list(): Promise<ListedContainer[]> {
    const engine = await this.engine().catch(() => undefined);
    if (!engine) {
      return [];
    }
    const started = await listStarted(this.options.local, engine);
    const listed: ListedContainer[] = [];
    for (const container of started) {
      const copyThere = await existsOn(this.options.local, container.labels.copy);
      listed.push({ ...container, leftBehind: !copyThere });
    }
    return listed;
  }

  /** At the start: the containers left behind, logged after `said` (they stay listed until the person removes them). */
  async findLeftBehind(said: readonly string[] = []): Promise<string[]> {
    said.forEach((line) => this.options.log(line));
    if (this.options.everStarted?.() === false) {
      // Nothing of Baton's can be there: the person's engine is not asked at every start.
      return [];
    }
    const left = (await this.list().catch(() => [])).filter((container) => container.leftBehind).map((container) => container.name);
    if (left.length > 0) {
      this.options.log(`containers left behind by an earlier run (their copies are gone): ${left.join(', ')}`);
    }
    return left;
  }
}

/** The host's containers: those of attempts, and the folders opened in their dev containers (both with the engine of its settings). */
export function containersForHost(
  local: Machine,
  settings: { getSetting<T>(key: string, schema: z.ZodType<T>, fallback: T): T; setSetting(key: string, value: unknown): void },
  log: (message: string) => void,
): { containers: AttemptContainers; devContainers: DevContainers } {
  const containers = AttemptContainers.forHost(local, settings, log);
  const devContainers = new DevContainers({
    local,
    engine: () => containers.engine(),
    read: () => settings.getSetting(DEV_CONTAINERS_SETTING, z.unknown(), []),
    write: (value) => settings.setSetting(DEV_CONTAINERS_SETTING, value),
  });
  return { containers, devContainers };
}
