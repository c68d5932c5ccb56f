/**
 * Dev containers: a working folder on this computer that holds `.devcontainer/devcontainer.json`
 * or `.devcontainer.json` opens in its dev container. Baton runs the dev container CLI
 * (`@devcontainers/cli`, `devcontainer up`) with the person's engine (`--docker-path`, Settings ›
 * Machines), shows its output as a log, and reaches the container by `<engine> exec -i` as a
 * machine of its own (id `dev:<folder>`), where the workspace folder is mounted as the CLI mounts
 * it (`/workspaces/<name>` unless the config says otherwise). The container is found again by its
 * label (`baton.devcontainer=<folder>`): `devcontainer up` reuses it, starting it when it stopped.
 * It is the project's, and stays when Baton ends, as in other editors.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { InvalidRequestError, MachineBlockedError } from '../../../app/errors.js';
import { execCommandOf, type Engine } from './containerEngine.js';
import type { Machine } from './Machine.js';

/** What a dev container's machine id starts with; its folder on this computer follows. */
const DEV_ID = 'dev:';
/** The setting listing the folders opened in their dev container. */
export const DEV_CONTAINERS_SETTING = 'machines.devContainers';
const entriesSchema = z.array(z.object({ folder: z.string() }));

/** The machine id of a folder's dev container. */
export function devMachineId(folder: string): string {
  return `${DEV_ID}${folder}`;
}

/** The folder of a dev container's machine id ('' for any other machine). */
export function folderOfDevId(machineId: string): string {
  return machineId.startsWith(DEV_ID) ? machineId.slice(DEV_ID.length) : '';
}

/** A dev container's name as the person sees it: its folder's name. */
export function devContainerName(folder: string): string {
  return `${path.basename(folder)} (dev container)`;
}

/** What `devcontainer up` answered: the container, the user it runs things as, and where the workspace is in it. */
export type DevContainerUp = { containerId: string; remoteUser: string; remoteWorkspaceFolder: string };

const upSchema = z.union([
  z.object({ outcome: z.literal('success'), containerId: z.string(), remoteUser: z.string(), remoteWorkspaceFolder: z.string() }),
  z.object({ outcome: z.literal('error'), message: z.string().optional(), description: z.string().optional() }),
]);

/** The dev container CLI's script (the package Baton ships with). */
function cliScript(): string {
  const manifest = createRequire(import.meta.url).resolve('@devcontainers/cli/package.json');
  return path.join(path.dirname(manifest), 'devcontainer.js');
}

export type DevContainersOptions = {
  local: Machine;
  /** The engine of Settings › Machines. */
  engine: () => Promise<Engine>;
  read: () => unknown;
  write: (value: unknown) => void;
};

/** The folders opened in their dev containers, and how each is brought up. */
export class DevContainers {
  constructor(private readonly options: DevContainersOptions) {}

  /** The folders opened in a dev container (the setting). */
  folders(): string[] {
    const parsed = entriesSchema.safeParse(this.options.read() ?? []);
    return parsed.success ? parsed.data.map((entry) => entry.folder).filter((folder) => path.isAbsolute(folder)) : [];
  }

  /** The config that makes `folder` a dev container's, or undefined when it has none. */
  async configOf(folder: string): Promise<string | undefined> {
    for (const candidate of [path.join(folder, '.devcontainer', 'devcontainer.json'), path.join(folder, '.devcontainer.json')]) {
      const found = await this.options.local.stat(candidate).then(
        (stat) => stat.kind === 'file',
        () => false,
      );
      if (found) {
        return candidate;
      }
    }
    return undefined;
  }

  /** Lists the folder (it has a config); refused with why when it has none. */
  async add(folder: string): Promise<void> {
    if (!path.isAbsolute(folder)) {
      throw new InvalidRequestError(`"${folder}" is not a full path of a folder on this computer.`);
    }
    if (!(await this.configOf(folder))) {
      throw new InvalidRequestError(
        `${folder} has no dev container: neither .devcontainer/devcontainer.json nor .devcontainer.json is there.`,
      );
    }
    const folders = this.folders();
    if (!folders.includes(folder)) {
      this.options.write([...folders, folder].map((entry) => ({ folder: entry })));
    }
  }

  /**
   * Brings the folder's dev container up (made, started, or found running) with `devcontainer up`;
   * each line of its output is heard as it comes. Rejects with a block saying what it said.
   */
  async up(folder: string, heard: (line: string) => void): Promise<DevContainerUp & { command: string; name: string }> {
    const name = devContainerName(folder);
    const engine = await this.options.engine().catch((error: unknown) => {
      throw new MachineBlockedError(name, 'unreachable', (error as Error).message);
    });
    const { local } = this.options;
    const child = local.spawn({
      command: process.execPath,
      args: [
        cliScript(),
        'up',
        '--workspace-folder',
        folder,
        '--docker-path',
        engine.program,
        '--id-label',
        `baton.devcontainer=${folder}`,
      ],
      // Node's own, also in Electron (whose executable runs scripts as Node with this).
      env: { ...local.env, ELECTRON_RUN_AS_NODE: '1' },
      cwd: folder,
    });
    const out: Buffer[] = [];
    let partial = '';
    const tail: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines.map((each) => each.replace(/\r$/, '')).filter(Boolean)) {
        tail.push(line);
        tail.splice(0, Math.max(0, tail.length - 5));
        heard(line);
      }
    });
    child.stdin.end();
    await child.spawned().catch((error: unknown) => {
      throw new MachineBlockedError(name, 'unreachable', `The dev container CLI could not be started: ${(error as Error).message}`);
    });
    const exit = await child.exited;
    const answer = Buffer.concat(out).toString('utf8').trim().split('\n').at(-1) ?? '';
    let parsed: z.infer<typeof upSchema> | undefined;
    try {
      parsed = upSchema.parse(JSON.parse(answer));
    } catch {
      parsed = undefined;
    }
    if (parsed?.outcome !== 'success') {
      const said = parsed?.outcome === 'error' ? [parsed.message, parsed.description].filter(Boolean).join(': ') : tail.join(' / ');
      throw new MachineBlockedError(
        name,
        'unreachable',
        `devcontainer up failed for ${folder} (${exit.code === null ? exit.signal : `exit ${exit.code}`}): ${said || 'it said nothing'}`,
      );
    }
    return { ...parsed, name, command: execCommandOf(engine, parsed.containerId, parsed.remoteUser) };
  }
}
