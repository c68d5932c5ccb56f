/**
 * Attempts in containers: each attempt's copy mounted at its own path in a container of its own
 * (see `AttemptContainers`), the container's machine connected before its agent is sent the
 * message, and the container removed with the copy. A worktree's own git folder is mounted
 * read-write, the repository's read-only: the agent's git reads its history and writes its index,
 * but nothing in the person's repository (its hooks and config included).
 */
import path from 'node:path';
import type { AttemptView } from '../../../app/transcript/index.js';
import type { AttemptsContext } from './attemptsContext.js';
import { attemptOfBoxId } from '../machine/AttemptContainers.js';
import { LOCAL_MACHINE_ID } from '../machine/Machine.js';

/** Each attempt in a container of its own: the image it starts from, and whether it may use the network. */
export type ContainerChoice = { image: string; network: boolean };

/** Starts the attempt's container (its copy, made on this computer, at its own path there) and connects its machine. */
export async function startBox(
  ctx: AttemptsContext,
  attempt: AttemptView & { root: string },
  repository: string | undefined,
  container: ContainerChoice,
): Promise<void> {
  const { containers, machines, machine } = ctx.deps;
  if (!containers || !machines) {
    throw new Error('this Baton cannot start containers');
  }
  const folders: string[] = [];
  const readOnly: string[] = [];
  if (repository) {
    // The worktree's .git names its own folder in the repository's: `gitdir: <repository>/.git/worktrees/<name>`.
    const pointer = (await machine.readFile(path.join(attempt.root, '.git'), 4096)).data.toString('utf8');
    const own = /^gitdir: (.+)$/m.exec(pointer)?.[1]?.trim();
    if (own && path.isAbsolute(own)) {
      folders.push(own);
      readOnly.push(path.join(repository, '.git'));
    }
  }
  const machineId = await containers.start({
    attemptId: attempt.attemptId,
    conversationId: attempt.conversationId,
    copy: attempt.root,
    folders,
    readOnly,
    image: container.image.trim(),
    network: container.network,
  });
  try {
    await machines.connect(machineId);
  } catch (error) {
    throw new Error(`${attempt.agentName}'s container could not be reached: ${(error as Error).message}`, { cause: error });
  }
}

/** The machine an attempt's copy is on: this computer for an attempt in a container (the engine mounts it there). */
export function copyMachineOf(machineId: string): string {
  return attemptOfBoxId(machineId) ? LOCAL_MACHINE_ID : machineId;
}

/** Ends Baton's connection to the attempts' containers and removes them (said in the log when one could not be). */
export async function removeBox(
  ctx: AttemptsContext,
  ...attempts: ReadonlyArray<Pick<AttemptView, 'attemptId' | 'machine'>>
): Promise<void> {
  const { containers, machines, log } = ctx.deps;
  const boxed = attempts.filter((attempt) => attemptOfBoxId(attempt.machine ?? ''));
  if (!containers || boxed.length === 0) {
    return;
  }
  for (const attempt of boxed) {
    await machines?.remove(attempt.machine!).catch(() => undefined);
  }
  await containers
    .remove(boxed.map((attempt) => attempt.attemptId))
    .catch((error: unknown) => log(`could not remove a container: ${String(error)}`));
}
