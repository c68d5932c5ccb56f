/**
 * An imported transcript comes from a file, not from the person's own choices here: its working
 * folder, instructions (at whatever level it names), injectors and toolbox are shown as they
 * were, but none of them reaches an agent until the person confirms them, and the agent sessions
 * it names are never reopened (a new session gets Baton's handoff of the transcript instead).
 */
import path from 'node:path';
import { z } from 'zod';
import { ImportNotConfirmedError, InvalidRequestError } from '../../../app/errors.js';
import type { ImportReview as ImportReviewInfo } from '../../../app/ipc/index.js';
import { checkWorkingFolderAt } from '../files/checkWorkingFolder.js';
import { isBroadFolder } from '../files/isBroadFolder.js';
import type { Machines } from '../machine/Machines.js';
import type { EventStore } from '../store/EventStore.js';

const reviewSchema = z.object({ confirmed: z.boolean(), sessions: z.array(z.string()) });
type Review = z.infer<typeof reviewSchema>;

const key = (conversationId: string): string => `importReview.${conversationId}`;

/** Imported conversations waiting for the person's confirmation, and the sessions they named. */
export class ImportReview {
  constructor(
    private readonly store: EventStore,
    private readonly homeDir: string,
    /** Where a conversation's folder is checked: on its machine (another one is connected first). */
    private readonly machines: Pick<Machines, 'local' | 'isLocal' | 'connect'>,
  ) {}

  /** Marks a just-imported conversation: unconfirmed, its sessions never to be reopened. */
  begin(conversationId: string): void {
    const sessions = Object.values(this.store.getContext(conversationId).sessions).map((session) => session.sessionId);
    this.store.setSetting(key(conversationId), { confirmed: false, sessions } satisfies Review);
  }

  private get(conversationId: string): Review | null {
    return this.store.getSetting<Review | null>(key(conversationId), reviewSchema.nullable(), null);
  }

  /** What the conversation brings, while it waits for confirmation (null otherwise). */
  review(conversationId: string): ImportReviewInfo | null {
    if (this.get(conversationId)?.confirmed !== false) {
      return null;
    }
    const context = this.store.getContext(conversationId);
    return {
      cwd: context.cwd,
      broadFolder: isBroadFolder(context.cwd, this.homeDir),
      instructions: context.instructions,
      injectors: context.injectors && !context.injectors.off ? context.injectors.names : [],
      servers: context.toolbox?.servers.map((server) => server.name) ?? [],
    };
  }

  /** Throws ImportNotConfirmedError while the conversation waits for confirmation. */
  requireConfirmed(conversationId: string): void {
    if (this.get(conversationId)?.confirmed === false) {
      throw new ImportNotConfirmedError(conversationId);
    }
  }

  /** The person confirmed: the folder must be the one shown, and pass the check any folder does, on its machine. */
  async confirm(conversationId: string, cwd: string): Promise<void> {
    const review = this.get(conversationId);
    if (!review) {
      throw new InvalidRequestError('This conversation was not imported; there is nothing to confirm.');
    }
    const shown = this.store.getContext(conversationId).cwd;
    if (path.resolve(cwd) !== path.resolve(shown)) {
      throw new InvalidRequestError(`The folder confirmed (${cwd}) is not the conversation's folder (${shown}).`);
    }
    await checkWorkingFolderAt(this.machines, shown, this.store.getSummary(conversationId).machine);
    this.store.setSetting(key(conversationId), { ...review, confirmed: true } satisfies Review);
  }

  /** True for an agent session the imported file named: never reopened, whatever the file says. */
  isImportedSession(conversationId: string, sessionId: string): boolean {
    return this.get(conversationId)?.sessions.includes(sessionId) ?? false;
  }
}
