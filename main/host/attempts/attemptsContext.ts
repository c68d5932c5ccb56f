/**
 * What the parts of "Ask several agents" share: the host's pieces they run with (`AttemptsDeps`),
 * the attempt sets' read model, and the copies being made and removed in the background.
 */
import type { AttemptView } from '../../../app/transcript/index.js';
import type { CheckpointStore } from '../checkpoints/CheckpointStore.js';
import { maxFileBytesSetting, type TurnCheckpoints } from '../checkpoints/TurnCheckpoints.js';
import type { Committer } from '../conversations/Committer.js';
import type { ImportReview } from '../conversations/ImportReview.js';
import type { PendingFolders } from '../conversations/PendingFolders.js';
import type { AttemptContainers } from '../machine/AttemptContainers.js';
import { existsOn, pathsOf, type Machine } from '../machine/Machine.js';
import type { Machines } from '../machine/Machines.js';
import type { EventStore } from '../store/EventStore.js';
import type { AttemptSets } from './AttemptSets.js';
import type { GitHost } from './folderCopies.js';

/** What attempts are run with. */
export type AttemptsDeps = {
  store: EventStore;
  committer: Committer;
  checkpoints: CheckpointStore;
  turnCheckpoints: TurnCheckpoints | undefined;
  importReview: Pick<ImportReview, 'requireConfirmed'>;
  /** The agent's name, or NotFound. */
  agentName: (agentId: string) => string;
  /** Folders still being made: an attempt's agent starts meanwhile, its session waits for its copy. */
  pendingFolders?: PendingFolders;
  turns: {
    send(conversationId: string, text: string, agentId?: string): Promise<{ turnId: string }>;
    cancel(conversationId: string): Promise<boolean>;
    activeTurnId(conversationId: string): string | undefined;
    release(conversationId: string): Promise<void>;
  };
  dataDir: string;
  /** This computer (git runs with its environment). */
  machine: Machine;
  /** The other machines a conversation may be on (absent: only this computer). */
  machines?: Pick<Machines, 'openOf' | 'ready' | 'connect' | 'remove'>;
  /** The containers Baton starts for attempts (absent: attempts are never in containers). */
  containers?: Pick<AttemptContainers, 'engine' | 'start' | 'remove'>;
  log: (message: string) => void;
};

/** The pieces, the read model, and the work under way. */
export type AttemptsContext = {
  deps: AttemptsDeps;
  sets: AttemptSets;
  /** Copies being made, by attempts id (waited for before they are removed). */
  preparing: Map<string, Promise<void>>;
  /** Copies being removed after a Keep (waited for by `idle`). */
  removing: Set<Promise<unknown>>;
  /** By attempts id, the watches held while its copies exist (the working folder's and each copy's): each stops one. */
  watching: Map<string, Array<() => void>>;
};

/**
 * Watches `folder` for as long as the attempts of `attemptsId` have their copies: a Keep's
 * checkpoints of the copy and of the working folder then look only at what changed since the
 * attempts started, instead of walking both folders.
 */
export function watchWhileOpen(ctx: AttemptsContext, attemptsId: string, folder: string, on: GitHost): void {
  const stops = ctx.watching.get(attemptsId) ?? [];
  stops.push(ctx.deps.checkpoints.watch(folder, on.machine));
  ctx.watching.set(attemptsId, stops);
}

/** Stops the watches {@link watchWhileOpen} holds for `attemptsId`. */
export function stopWatching(ctx: AttemptsContext, attemptsId: string): void {
  for (const stop of ctx.watching.get(attemptsId) ?? []) {
    stop();
  }
  ctx.watching.delete(attemptsId);
}

/** How a folder on `on` is scanned for a checkpoint (the setting's size limit). */
export function scanOn(deps: Pick<AttemptsDeps, 'store'>, on: GitHost): { maxFileBytes: number; machine: Machine } {
  return { maxFileBytes: maxFileBytesSetting(deps.store), machine: on.machine };
}

/** The top of an attempt's copy: its worktree (above the working folder's place in it), or the copy itself. */
export function rootOf(attempt: AttemptView, on: GitHost): string {
  // Copies live at <machine data>/attempts/<attemptsId>/<agent>[/<subdir>]: the root is the first three levels under attempts.
  const { sep } = pathsOf(on.machine);
  const parts = attempt.folder.split(sep);
  const at = parts.lastIndexOf('attempts');
  return at >= 0 && parts.length >= at + 3 ? parts.slice(0, at + 3).join(sep) : attempt.folder;
}

/** True when something is at `target` on the machine. */
export function exists(on: GitHost, target: string): Promise<boolean> {
  return existsOn(on.machine, target);
}
