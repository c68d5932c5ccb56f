/**
 * Working folders still being made (an attempt's copy of the folder): a conversation's agent may
 * start meanwhile, but its session is not opened, and its turn's first checkpoint is not taken,
 * until the folder is ready. A folder that could not be made fails the turn with why.
 */

/** The folders being made, by conversation. */
export class PendingFolders {
  private readonly pending = new Map<string, Promise<void>>();

  /** The conversation's folder is being made; `ready` settles once it is (or rejects with why it could not be). */
  hold(conversationId: string, ready: Promise<void>): void {
    // Nobody may be waiting yet: a rejection is not left unhandled.
    ready.catch(() => undefined);
    this.pending.set(conversationId, ready);
    void ready.then(
      () => this.release(conversationId, ready),
      () => this.release(conversationId, ready),
    );
  }

  /** Resolves once the conversation's folder is ready (at once when none is being made); rejects when it could not be made. */
  ready(conversationId: string): Promise<void> {
    return this.pending.get(conversationId) ?? Promise.resolve();
  }

  private release(conversationId: string, ready: Promise<void>): void {
    // Kept a moment after it settles would serve nobody: a later turn finds the folder there (or not) itself.
    if (this.pending.get(conversationId) === ready) {
      this.pending.delete(conversationId);
    }
  }
}
