/**
 * The container engine as the person has it: podman or docker from this computer's PATH (rootless
 * podman too: it runs as the person). Baton never installs one; when none is there it says which
 * is missing and how to get it. What Baton runs with it:
 * - `run -d` of a container Baton starts, labelled (`baton.attempt`, `baton.conversation`,
 *   `baton.copy`), kept alive by a `sleep` until Baton removes it;
 * - `ps -a --filter label=…` and `inspect` to find Baton's containers again (after a crash too);
 * - `rm -f` to remove one.
 * The person's own settings of the engine apply (`containers.conf`, `CONTAINERS_CONF`, docker's
 * context); Baton adds only the run options of the setting `containers.runOptions`.
 */
import { z } from 'zod';
import { InvalidRequestError, MachineBlockedError } from '../../../app/errors.js';
import { commandWords } from './CommandMachine.js';
import { lastWords, type Machine } from './Machine.js';

/** The setting naming the engine: 'podman', 'docker', or '' (the first of them on the PATH). */
export const ENGINE_SETTING = 'containers.engine';
/** The setting with options added to each container Baton starts (as typed: `--userns=keep-id -v ~/.claude:/root/.claude`). */
export const RUN_OPTIONS_SETTING = 'containers.runOptions';
export const engineSettingSchema = z.enum(['', 'podman', 'docker']);

/** An engine found on this computer. */
export type Engine = { kind: 'podman' | 'docker'; program: string };

/** The labels of a container Baton started. */
export type BatonLabels = { attempt: string; conversation: string; copy: string };

/** One container Baton started, as the engine lists it. */
export type StartedContainer = { name: string; running: boolean; labels: BatonLabels };

/** How to get an engine, said when none is found. */
const INSTALL_HINT =
  'Install podman (Debian and Ubuntu: apt-get install podman; Fedora: dnf install podman; macOS: brew install podman) or Docker, then try again.';

/** The engine named by the setting (or the first of podman and docker found); refused with what is missing and how to get it. */
export async function findEngine(local: Machine, wanted: z.infer<typeof engineSettingSchema>): Promise<Engine> {
  for (const kind of wanted ? [wanted] : (['podman', 'docker'] as const)) {
    const program = await local.which(kind).catch(() => undefined);
    if (program) {
      return { kind, program };
    }
  }
  throw new MachineBlockedError(
    'This computer',
    'unreachable',
    `${wanted ? `${wanted} (the container engine picked in Settings › Machines) is` : 'Neither podman nor docker is'} not on this computer's PATH. ${INSTALL_HINT}`,
  );
}

/** The container Baton starts for an attempt is called by its attempt id. */
export function containerNameOf(attemptId: string): string {
  return `baton-attempt-${attemptId.replace(/[^A-Za-z0-9_.-]/g, '-')}`;
}

/**
 * The command that runs a program in a container with standard input and output (what a command
 * machine is given), as `commandWords` reads it back; `user` runs it as that user.
 */
export function execCommandOf(engine: Engine, container: string, user?: string): string {
  return [engine.program, 'exec', '-i', ...(user ? ['-u', user] : []), container]
    .map((word) => (/^[A-Za-z0-9_./:=@-]+$/.test(word) ? word : `'${word}'`))
    .join(' ');
}

/** What a container for one attempt is started with. */
export type ContainerSpec = {
  name: string;
  image: string;
  labels: BatonLabels;
  /** Folders mounted at their own paths: read-write, and read-only (mounted first). */
  folders: readonly string[];
  readOnly?: readonly string[];
  /** False: `--network=none`. True: the engine's default network (or what the run options say). */
  network: boolean;
  /** The setting's run options, as typed. */
  runOptions: string;
};

/** The words of `run` for a container Baton starts (kept alive by `sleep`, whatever the image's entry point). */
export function runWords(spec: ContainerSpec): string[] {
  if (!/^[^\s-][^\s]*$/.test(spec.image)) {
    throw new InvalidRequestError(`"${spec.image}" is not an image name (for example: docker.io/library/node:22).`);
  }
  const extra = spec.runOptions.trim() ? commandWords(spec.runOptions) : [];
  return [
    'run',
    '-d',
    '--name',
    spec.name,
    '--label',
    `baton.attempt=${spec.labels.attempt}`,
    '--label',
    `baton.conversation=${spec.labels.conversation}`,
    '--label',
    `baton.copy=${spec.labels.copy}`,
    ...(spec.network ? [] : ['--network=none']),
    // Read-only ones first: a read-write folder may be inside one (a worktree's own git folder in the repository's).
    ...(spec.readOnly ?? []).flatMap((folder) => ['-v', `${folder}:${folder}:ro`]),
    ...spec.folders.flatMap((folder) => ['-v', `${folder}:${folder}`]),
    ...extra,
    '--entrypoint',
    'sleep',
    spec.image,
    'infinity',
  ];
}

/** Runs the engine; what it printed, or an error with its own last words. */
async function runEngine(local: Machine, engine: Engine, args: readonly string[], timeoutMs = 300_000): Promise<string> {
  const result = await local.exec(engine.program, args, { timeoutMs });
  if (result.code !== 0) {
    throw new InvalidRequestError(`${engine.kind} ${args[0]} failed: ${lastWords(result)}`);
  }
  return result.stdout;
}

/** Starts the container; rejects with the engine's own words (an image it has not got, an option it refused). */
export async function startContainer(local: Machine, engine: Engine, spec: ContainerSpec): Promise<void> {
  await runEngine(local, engine, runWords(spec));
}

/** Removes a container (and what runs in it) at once; one already gone is no error. */
export async function removeContainer(local: Machine, engine: Engine, name: string): Promise<void> {
  const result = await local.exec(engine.program, ['rm', '-f', ...(engine.kind === 'podman' ? ['-t', '0'] : []), name], {
    timeoutMs: 60_000,
  });
  if (result.code !== 0 && !/no such container|no container with name/i.test(result.stderr)) {
    throw new InvalidRequestError(`${engine.kind} could not remove the container ${name}: ${lastWords(result)}`);
  }
}

const labelsSchema = z.object({ 'baton.attempt': z.string(), 'baton.conversation': z.string(), 'baton.copy': z.string() });

/** Every container Baton started (by its `baton.attempt` label), running or not. */
export async function listStarted(local: Machine, engine: Engine): Promise<StartedContainer[]> {
  const names = (await runEngine(local, engine, ['ps', '-a', '--filter', 'label=baton.attempt', '--format', '{{.Names}}'], 60_000))
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (names.length === 0) {
    return [];
  }
  const inspected = await runEngine(
    local,
    engine,
    ['inspect', '--format', '{{json .Config.Labels}}\t{{.State.Running}}', ...names],
    60_000,
  );
  const found: StartedContainer[] = [];
  for (const [index, line] of inspected.split('\n').filter(Boolean).entries()) {
    const [labels, running] = line.split('\t');
    let read: unknown;
    try {
      read = JSON.parse(labels ?? 'null');
    } catch {
      read = null;
    }
    const parsed = labelsSchema.safeParse(read);
    if (parsed.success && names[index]) {
      const { 'baton.attempt': attempt, 'baton.conversation': conversation, 'baton.copy': copy } = parsed.data;
      found.push({ name: names[index], running: running === 'true', labels: { attempt, conversation, copy } });
    }
  }
  return found;
}

/** Starts a stopped container again (this computer restarted since); rejects with the engine's words. */
export async function restartContainer(local: Machine, engine: Engine, name: string): Promise<void> {
  await runEngine(local, engine, ['start', name], 60_000);
}
