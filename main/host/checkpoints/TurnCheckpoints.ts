/**
 * Checkpoints around turns: one of the conversation's working folder when a turn is accepted
 * (taken while its agent session starts, so the prompt is not held back) and one when it has
 * ended, each recorded as `checkpoint.taken`. The checkpoints of one conversation are taken in
 * order. A checkpoint that cannot be taken (a folder as broad as `/` or the home folder, too many
 * files, a full disk) is recorded with why; it never fails the turn.
 */
import type { Machine } from '../machine/Machine.js';
import { z } from 'zod';
import type { EventDraft } from '../../../app/events/index.js';
import { isBroadFolder } from '../files/isBroadFolder.js';
import type { EventStore } from '../store/EventStore.js';
import type { CheckpointStore } from './CheckpointStore.js';

/** Default of the setting `checkpoints.maxFileMegabytes`: files larger than this are not kept. */
const DEFAULT_MAX_FILE_MEGABYTES = 10;

/** How long one checkpoint may take before Baton stops it and records why. */
const DEFAULT_TIME_LIMIT_MS = 120_000;

/** Options of one checkpoint of a turn. */
export type TurnCheckpointOptions = {
  /** True once the turn's prompt went out: a "before" checkpoint that finishes later is marked approximate. */
  promptSent?: () => boolean;
};

/** The checkpoints of turns. */
export class TurnCheckpoints {
  /** Per conversation, the last checkpoint asked for (the next one waits for it). */
  /** The "before" checkpoint of each turn still running (its "after" one says how many files changed). */
  private readonly before = new Map<string, string>();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly checkpoints: CheckpointStore,
    private readonly store: EventStore,
    private readonly commit: (conversationId: string, drafts: EventDraft[]) => void,
    private readonly homeDir: string,
    private readonly log: (message: string) => void,
    private readonly timeLimitMs = DEFAULT_TIME_LIMIT_MS,
    /** The machine a conversation's folder is on, when it is not this computer (throws when it is not open). */
    private readonly machineOf: (conversationId: string) => Machine | undefined = () => undefined,
  ) {}

  /** Takes the checkpoint of `phase` for a turn; resolves once it is recorded (never rejects). None with the setting `checkpoints.off`. */
  take(conversationId: string, turnId: string, cwd: string, phase: 'before' | 'after', options: TurnCheckpointOptions = {}): Promise<void> {
    if (this.store.getSetting('checkpoints.off', z.boolean(), false)) {
      return Promise.resolve();
    }
    const previous = this.chains.get(conversationId) ?? Promise.resolve();
    const next = previous.then(() => this.record(conversationId, turnId, cwd, phase, options));
    this.chains.set(conversationId, next);
    void next.then(() => {
      if (this.chains.get(conversationId) === next) {
        this.chains.delete(conversationId);
      }
    });
    return next;
  }

  /** Waits for the checkpoints asked for: of one conversation, or of every one (tests, shutdown). */
  async idle(conversationId?: string): Promise<void> {
    await (conversationId === undefined ? Promise.all([...this.chains.values()]) : this.chains.get(conversationId));
  }

  private async record(
    conversationId: string,
    turnId: string,
    cwd: string,
    phase: 'before' | 'after',
    options: TurnCheckpointOptions,
  ): Promise<void> {
    let draft: EventDraft;
    try {
      const machine = this.machineOf(conversationId);
      if (isBroadFolder(cwd, machine ? machine.home : this.homeDir)) {
        throw new Error(`${cwd} is as broad as the whole disk or your home folder; Baton keeps no checkpoints of it`);
      }
      const signal = AbortSignal.timeout(this.timeLimitMs);
      const checkpoint = await this.checkpoints.take(cwd, {
        maxFileBytes: maxFileBytesSetting(this.store),
        signal,
        ...(machine ? { machine } : {}),
      });
      // The agent may have changed files before this one finished looking: its list is approximate.
      const approximate = phase === 'before' && options.promptSent?.() === true ? { approximate: true as const } : {};
      // How many files the turn changed, so a turn that changed none says nothing about files.
      const before = this.before.get(turnId);
      this.before.delete(turnId);
      if (phase === 'before') {
        this.before.set(turnId, checkpoint.checkpointId);
      }
      const changed = phase === 'after' && before ? { changed: this.checkpoints.changes(before, checkpoint.checkpointId).length } : {};
      draft = {
        type: 'checkpoint.taken',
        payload: {
          turnId,
          phase,
          checkpointId: checkpoint.checkpointId,
          files: checkpoint.files,
          tooLarge: checkpoint.tooLarge,
          failed: checkpoint.failed,
          ...approximate,
          ...changed,
        },
      };
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      const reason = timedOut
        ? `it took longer than ${Math.round(this.timeLimitMs / 1000)} s, so Baton stopped looking at the folder`
        : error instanceof Error
          ? error.message
          : String(error);
      this.log(`the ${phase} checkpoint of turn ${turnId} was not taken: ${reason}`);
      draft = { type: 'checkpoint.taken', payload: { turnId, phase, tooLarge: [], failed: [], error: reason } };
    }
    try {
      this.commit(conversationId, [draft]);
    } catch (error) {
      this.log(`could not record the ${phase} checkpoint of turn ${turnId}: ${String(error)}`);
    }
  }
}

/** The size limit of kept files, from the setting `checkpoints.maxFileMegabytes`. */
export function maxFileBytesSetting(store: Pick<EventStore, 'getSetting'>): number {
  return store.getSetting('checkpoints.maxFileMegabytes', z.number().positive().max(10_000), DEFAULT_MAX_FILE_MEGABYTES) * 1024 * 1024;
}
