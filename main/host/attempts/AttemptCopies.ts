/**
 * The copies' bookkeeping of "Ask several agents": where each ask's copies are, on which machine,
 * written before any copy is made, so that a copy left by a host that died is found at the next
 * start. The owner file is this computer's (`<data>/attempts/<attemptsId>/owner.json`); the copies
 * are on the machine the working folder is on, under its own Baton folder
 * (`<machine data>/attempts/<attemptsId>/<agent>`: on this computer the same folder). Nothing else
 * writes the owner file; it is read and written through this computer's machine (a confined,
 * atomic write).
 */
import path from 'node:path';
import { z } from 'zod';
import { pathsOf } from '../machine/Machine.js';
import { gitHostOn, gitHostReady, readOwnerFile, removeCopy, type CopyMachines, type GitHost } from './folderCopies.js';

/** Where the copies of one ask are. */
const ownerSchema = z.object({
  conversationId: z.string(),
  attemptsId: z.string(),
  /** The machine the copies are on (absent: this computer, as every owner file before machines). */
  machine: z.string().optional(),
  repository: z.string().optional(),
  copies: z.array(z.object({ attemptId: z.string(), root: z.string(), branch: z.string().optional() })),
});
export type Owner = z.infer<typeof ownerSchema>;

/** What the bookkeeping needs: this computer's data folder and machine, and the other machines. */
export type AttemptCopiesDeps = CopyMachines & { dataDir: string };

/** The copies of every ask, by attempts id. */
export class AttemptCopies {
  constructor(private readonly deps: AttemptCopiesDeps) {}

  /** Where git and the copies' files are for a folder on `machineId`: that machine, open, or refused with why. */
  on(machineId: string | undefined): GitHost {
    return gitHostOn(machineId, this.deps);
  }

  /** The same when that machine is open now; undefined when it is not (nothing is started). */
  ready(machineId: string | undefined): GitHost | undefined {
    return gitHostReady(machineId, this.deps);
  }

  /** The folder of one ask's copies on the machine. */
  directoryOn(on: GitHost, attemptsId: string): string {
    return pathsOf(on.machine).join(on.machine.dataDir, 'attempts', attemptsId);
  }

  /** The asks with an owner file or a folder here (by attempts id). */
  async listed(): Promise<string[]> {
    const entries = await this.deps.machine.list(this.top).catch(() => []);
    return entries.map((entry) => entry.name);
  }

  async read(attemptsId: string): Promise<Owner | undefined> {
    const parsed = ownerSchema.safeParse(await readOwnerFile(this.deps.machine, this.fileOf(attemptsId)));
    return parsed.success ? parsed.data : undefined;
  }

  /** Lists copies (with those listed before for other attempts of the ask). */
  async write(owner: Owner): Promise<void> {
    const existing = await this.read(owner.attemptsId);
    const copies = [
      ...(existing?.copies ?? []).filter((copy) => !owner.copies.some((mine) => mine.attemptId === copy.attemptId)),
      ...owner.copies,
    ];
    await this.replace({ ...owner, copies });
  }

  /** Takes a copy off its ask's list (it failed, or became a branch's own). */
  async forget(attemptsId: string, attemptId: string): Promise<void> {
    const owner = await this.read(attemptsId);
    if (owner) {
      await this.replace({ ...owner, copies: owner.copies.filter((copy) => copy.attemptId !== attemptId) });
    }
  }

  /** Removes one listed copy (its worktree, entry and recorded branch too); rejects with what could not be removed. */
  remove(owner: Owner, copy: Owner['copies'][number], on: GitHost): Promise<void> {
    return removeCopy({ folder: copy.root, repository: owner.repository, branch: copy.branch }, on);
  }

  /**
   * Removes an ask's folder once its copies are gone, unless a continued attempt's copy still lives
   * in it (that copy is its branch's now): then only the owner file stays, listing no copy, so the
   * folder is not taken for an unrecorded one at the next start.
   */
  async removeDirectory(attemptsId: string, on: GitHost): Promise<void> {
    const directory = this.directoryOn(on, attemptsId);
    const left = await on.machine.list(directory).then(
      (entries) => entries.filter((entry) => entry.name !== 'owner.json'),
      (error: unknown) => ((error as NodeJS.ErrnoException).code === 'ENOENT' ? [] : undefined),
    );
    if (left?.length !== 0) {
      return;
    }
    await on.machine.remove(directory).catch(() => undefined);
    await this.deps.machine.remove(path.join(this.top, attemptsId));
  }

  /** Removes a folder here that no owner file explains (a host died before it wrote one). */
  async removeUnlisted(name: string): Promise<string> {
    const directory = path.join(this.top, name);
    await this.deps.machine.remove(directory);
    return directory;
  }

  private get top(): string {
    return path.join(this.deps.dataDir, 'attempts');
  }

  private fileOf(attemptsId: string): string {
    return path.join(this.top, attemptsId, 'owner.json');
  }

  /** Written beside and renamed over (never through a link), owner-only, in an owner-only folder. */
  private async replace(owner: Owner): Promise<void> {
    await this.deps.machine.mkdir(path.join(this.top, owner.attemptsId), 0o700);
    await this.deps.machine.writeConfined(this.top, `${owner.attemptsId}/owner.json`, Buffer.from(JSON.stringify(owner)), 0o600);
  }
}
