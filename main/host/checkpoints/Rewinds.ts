/**
 * Rewind and branch. A rewind goes back to before one of the person's messages: that turn and
 * every later one are set aside (kept, never handed to an agent again) and the working folder's
 * files the agent changed in them are put back as the checkpoint before that message holds them.
 * Files the agent never touched are left alone; a file the person changed since the last
 * checkpoint is put back only when they ticked it. The folder as it was just before is kept as a
 * checkpoint, which "Undo rewind" puts back. A branch is a new conversation made of the history
 * before one message, the original untouched; its files are put back only when asked.
 */
import type { Machine } from '../machine/Machine.js';
import { InvalidRequestError, NotFoundError, TurnInProgressError } from '../../../app/errors.js';
import type { TranscriptEvent } from '../../../app/events/index.js';
import { newId } from '../../../app/ids.js';
import type { Result } from '../../../app/ipc/index.js';
import { canUndoRewind, emptyTranscript, reduceAll, sessionForkPoint, type TranscriptState } from '../../../app/transcript/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import type { Committer } from '../conversations/Committer.js';
import type { ImportReview } from '../conversations/ImportReview.js';
import type { EventStore } from '../store/EventStore.js';
import { diffManifests, type CheckpointEntry, type CheckpointStore, type LeftOut } from './CheckpointStore.js';
import type { Restore } from '../machine/restoreFolder.js';
import { maxFileBytesSetting, type TurnCheckpoints } from './TurnCheckpoints.js';
import { checkpointsByTurn, MAX_TEXT_BYTES, shownText } from './turnChanges.js';

/** Event types a branch does not copy: the original's agent sessions and its place in the history are its own. */
const NOT_BRANCHED = new Set([
  'session.bound',
  'conversation.archived',
  'conversation.unarchived',
  'conversation.deleted',
  'conversation.restored',
]);

type Action = 'restored' | 'removed' | 'recreated';
/**
 * One file a rewind would change: one the agent changed in a set-aside turn (`changedByYou` when
 * the person changed it since), or one that differs from the checkpoint although no turn changed
 * it (`outsideTurn`: the person, or an agent's background process, between turns). Only the
 * agent's own, unchanged since, are put back unless ticked.
 */
type PlannedFile = {
  path: string;
  action: Action;
  changedByYou: boolean;
  outsideTurn: boolean;
  target: CheckpointEntry | undefined;
  now: CheckpointEntry | undefined;
};
/** What rewinding to a message would do. */
type Plan = {
  state: TranscriptState;
  events: TranscriptEvent[];
  toTurnId: string;
  pointSeq: number;
  /** When that message was sent. */
  pointAt: string;
  text: string;
  setAside: string[];
  files: PlannedFile[];
  cannot: LeftOut[];
  /** Why the files cannot be put back at all, if they cannot. */
  unavailable: string | null;
  /** The folder's real path when the target checkpoint was taken (null: not recorded). */
  real: string | null;
};

/** True when a planned file is put back without being ticked. */
const putBackUnticked = (file: PlannedFile): boolean => !file.changedByYou && !file.outsideTurn;

/** What rewinds are made with. */
export type RewindsDeps = {
  store: EventStore;
  committer: Committer;
  checkpoints: CheckpointStore;
  turnCheckpoints: TurnCheckpoints | undefined;
  importReview: ImportReview;
  /** The turn running in a conversation, if any. */
  activeTurnId: (conversationId: string) => string | undefined;
  /** Lets the conversation's live agent session go (it saw what is set aside). */
  releaseSession: (conversationId: string) => Promise<void>;
  /** The machine a conversation's folder is on, when it is not this computer (throws when it is not open). */
  machineOf?: (conversationId: string) => Machine | undefined;
};

/** Rewinds of conversations, their undoing, and branches. */
export class Rewinds {
  constructor(private readonly deps: RewindsDeps) {}

  /** What rewinding to before the message of `turnId` would set aside and do to the files. */
  async preview(conversationId: string, turnId: string): Promise<Result<'previewRewind'>> {
    const plan = await this.plan(conversationId, turnId);
    const { machine } = this.on(conversationId);
    const files = await Promise.all(
      plan.files.map(async (file) => ({
        path: file.path,
        action: file.action,
        changedByYou: file.changedByYou,
        outsideTurn: file.outsideTurn,
        ...(await this.texts(plan.state.cwd, file, machine)),
      })),
    );
    const setAside = plan.setAside.map((id) => {
      const message = plan.state.items.find((item) => item.kind === 'user' && item.turnId === id && !item.steered);
      return { turnId: id, text: message?.kind === 'user' ? message.text : '', at: plan.state.turns[id]?.startedAt ?? '' };
    });
    return { setAside, files, cannot: plan.cannot, unavailable: plan.unavailable };
  }

  /** Rewinds to before the message of `turnId`; returns that message for the box and what happened to the files. */
  async rewind(
    conversationId: string,
    turnId: string,
    options: { keepFiles: boolean; overwrite: readonly string[]; retry?: boolean },
  ): Promise<Result<'rewindConversation'>> {
    const restoring = !options.keepFiles;
    const plan = await this.plan(conversationId, turnId);
    const { store, checkpoints, committer } = this.deps;
    let checkpointId: string | undefined;
    let changed: Array<{ path: string; action: Action }> = [];
    let failed: LeftOut[] = [...plan.cannot];
    if (restoring && plan.unavailable === null) {
      // The folder as it is now, kept so "Undo rewind" can put it back.
      checkpointId = (await checkpoints.take(plan.state.cwd, { maxFileBytes: maxFileBytesSetting(store), ...this.on(conversationId) }))
        .checkpointId;
      const chosen = plan.files.filter((file) => putBackUnticked(file) || options.overwrite.includes(file.path));
      const notWritten = await checkpoints.restore(
        plan.state.cwd,
        chosen.map((file): Restore => ({ path: file.path, entry: file.target })),
        plan.real ?? undefined,
        this.on(conversationId).machine,
      );
      const notDone = new Set(notWritten.map((file) => file.path));
      changed = chosen.filter((file) => !notDone.has(file.path)).map((file) => ({ path: file.path, action: file.action }));
      failed = [...failed, ...notWritten];
    } else if (restoring && plan.unavailable !== null) {
      failed = [{ path: '.', reason: plan.unavailable }];
    }
    await this.deps.releaseSession(conversationId);
    const rewindId = newId();
    const fork = sessionForkPoint(plan.events, plan.state, plan.pointSeq);
    committer.commit(conversationId, [
      {
        type: 'conversation.rewound',
        payload: {
          rewindId,
          toTurnId: turnId,
          pointSeq: plan.pointSeq,
          pointAt: plan.pointAt,
          setAside: plan.setAside,
          files: restoring ? 'restored' : 'kept',
          ...(checkpointId ? { checkpointId } : {}),
          changed,
          failed,
          ...(options.retry ? { retry: true as const } : {}),
          ...(fork ? { fork } : {}),
        },
      },
    ]);
    return { rewindId, text: plan.text, changed, failed };
  }

  /**
   * Undoes a rewind: the turns it set aside are back (after any sent since, which stay), and each
   * file it wrote is as it was just before it, unless it was changed since (then it is left, and said).
   */
  async undo(conversationId: string, rewindId: string): Promise<Result<'undoRewind'>> {
    this.deps.importReview.requireConfirmed(conversationId);
    this.requireIdle(conversationId);
    await this.deps.turnCheckpoints?.idle(conversationId);
    const { checkpoints, committer, store } = this.deps;
    const { state, events } = this.read(conversationId);
    const marker = state.items.find((item) => item.kind === 'rewind' && item.rewindId === rewindId);
    if (!marker || marker.kind !== 'rewind') {
      throw new NotFoundError('rewind', rewindId);
    }
    if (!canUndoRewind(state, marker)) {
      throw new InvalidRequestError('This rewind was undone already.');
    }
    const rewound = events.find(
      (event): event is Extract<TranscriptEvent, { type: 'conversation.rewound' }> =>
        event.type === 'conversation.rewound' && event.payload.rewindId === rewindId,
    );
    const failed: LeftOut[] = [];
    const target = checkpointsByTurn(events).get(marker.toTurnId)?.before?.checkpointId;
    if (rewound?.payload.checkpointId && target && rewound.payload.changed.length > 0) {
      const taken = this.ownCheckpoint(rewound.payload.checkpointId, state.cwd);
      const before = checkpoints.manifest(rewound.payload.checkpointId);
      const written = checkpoints.manifest(target);
      const now = await checkpoints.look(state.cwd, { maxFileBytes: maxFileBytesSetting(store), ...this.on(conversationId) });
      const restores: Restore[] = [];
      for (const { path: file } of rewound.payload.changed) {
        // Only a file still as the rewind left it: a later change (a turn since, the person) is kept.
        if (now.get(file)?.hash !== written.get(file)?.hash) {
          failed.push({ path: file, reason: 'changed since the rewind; left as it is' });
        } else {
          restores.push({ path: file, entry: before.get(file) });
        }
      }
      failed.push(...(await checkpoints.restore(state.cwd, restores, taken.real ?? undefined, this.on(conversationId).machine)));
    }
    await this.deps.releaseSession(conversationId);
    committer.commit(conversationId, [{ type: 'conversation.rewindUndone', payload: { rewindId, failed } }]);
    return { failed };
  }

  /**
   * A new conversation with the history before the message of `turnId` (the original untouched),
   * titled "<title> (branch)"; with `options.restoreFiles`, the folder's files are put back as they were
   * before that message (the person's own later changes are left alone).
   */
  async branch(
    conversationId: string,
    turnId: string,
    options: {
      restoreFiles: boolean;
      /** In its own copy: its id, the folder it works in, the copy to record, and what to tell the person about it. */ ownCopy?: {
        branchId: string;
        cwd: string;
        copy: { folder: string; repository?: string; branch?: string };
        note?: string;
      };
    },
  ): Promise<{ summary: ConversationSummary; text: string; failed: LeftOut[] }> {
    const { store, committer, checkpoints, importReview } = this.deps;
    importReview.requireConfirmed(conversationId);
    const plan = await this.plan(conversationId, turnId);
    const source = store.getSummary(conversationId);
    const envelopes = store
      .readEnvelopes(conversationId)
      .filter((envelope) => envelope.seq < plan.pointSeq && !NOT_BRANCHED.has(envelope.type));
    const own = options.ownCopy;
    const branchId = own?.branchId ?? newId();
    store.importEnvelopes(
      branchId,
      // In its own copy, the branch works there from its first event on.
      envelopes.map((envelope, index) => ({
        ...envelope,
        seq: index + 1,
        ...(own && envelope.type === 'conversation.created' ? { payload: { ...(envelope.payload as object), cwd: own.cwd } } : {}),
      })),
    );
    const title = `${source.title || 'Conversation'} (branch)`;
    const summary = committer.commit(branchId, [
      { type: 'conversation.renamed', payload: { title } },
      {
        type: 'conversation.branched',
        payload: { fromConversationId: conversationId, fromTitle: source.title, fromTurnId: turnId, ...(own ? { copy: own.copy } : {}) },
      },
      ...(own?.note ? [{ type: 'notice' as const, payload: { severity: 'info' as const, text: own.note } }] : []),
    ]).summary;
    let failed: LeftOut[] = [];
    if (options.restoreFiles && !own) {
      failed = plan.unavailable !== null ? [{ path: '.', reason: plan.unavailable }] : [...plan.cannot];
      if (plan.unavailable === null) {
        const chosen = plan.files.filter(putBackUnticked);
        failed.push(
          ...(await checkpoints.restore(
            plan.state.cwd,
            chosen.map((file) => ({ path: file.path, entry: file.target })),
            plan.real ?? undefined,
            this.on(conversationId).machine,
          )),
        );
      }
    }
    return { summary, text: plan.text, failed };
  }

  /** The machine of the conversation's folder, as the store's options take it (none: this computer). */
  private on(conversationId: string): { machine?: Machine } {
    const machine = this.deps.machineOf?.(conversationId);
    return machine ? { machine } : {};
  }

  private read(conversationId: string): { state: TranscriptState; events: TranscriptEvent[] } {
    this.deps.committer.flush(conversationId);
    const events = this.deps.store.readEvents(conversationId).events;
    return { state: reduceAll(emptyTranscript(conversationId), events), events };
  }

  private requireIdle(conversationId: string): void {
    if (this.deps.activeTurnId(conversationId) !== undefined) {
      throw new TurnInProgressError(conversationId);
    }
  }

  /** What rewinding to before `turnId`'s message does: the turns it sets aside, and each file it would put back. */
  private async plan(conversationId: string, turnId: string): Promise<Plan> {
    // An imported conversation writes nothing into a folder before the person confirmed it.
    this.deps.importReview.requireConfirmed(conversationId);
    this.requireIdle(conversationId);
    // Only this conversation's checkpoints: another conversation's slow one does not hold it up.
    await this.deps.turnCheckpoints?.idle(conversationId);
    const { state, events } = this.read(conversationId);
    const started = events.find(
      (event): event is Extract<TranscriptEvent, { type: 'turn.started' }> =>
        event.type === 'turn.started' && event.payload.turnId === turnId,
    );
    if (!started) {
      throw new NotFoundError('message', turnId);
    }
    if (state.setAside[turnId] !== undefined) {
      throw new InvalidRequestError('That message was set aside by a rewind; undo the rewind, or branch from it.');
    }
    const setAside = events.flatMap((event) =>
      event.type === 'turn.started' && event.seq >= started.seq && state.setAside[event.payload.turnId] === undefined
        ? [event.payload.turnId]
        : [],
    );
    const base = { state, events, toTurnId: turnId, pointSeq: started.seq, pointAt: started.at, text: started.payload.text, setAside };
    const taken = checkpointsByTurn(events);
    const before = taken.get(turnId)?.before;
    if (!before?.checkpointId) {
      const why = before?.error
        ? `no checkpoint could be taken before that message (${before.error})`
        : 'no checkpoint was taken before that message';
      return { ...base, files: [], cannot: [], unavailable: `The files cannot be put back: ${why}.`, real: null };
    }
    const { checkpoints, store } = this.deps;
    let real: string | null;
    try {
      real = this.ownCheckpoint(before.checkpointId, state.cwd).real;
    } catch (error) {
      return { ...base, files: [], cannot: [], unavailable: `The files cannot be put back: ${(error as Error).message}.`, real: null };
    }
    const target = checkpoints.manifest(before.checkpointId);
    // The paths the agent changed in the turns set aside: each turn's own changes where both its checkpoints exist.
    const touched = new Set<string>();
    let last: string = before.checkpointId;
    for (const id of setAside) {
      const turn = taken.get(id);
      const from = turn?.before?.checkpointId;
      const to = turn?.after?.checkpointId;
      if (from && to) {
        for (const change of checkpoints.changes(from, to)) {
          touched.add(change.path);
        }
        last = to;
      } else if (to ?? from) {
        last = (to ?? from)!;
      }
    }
    if (setAside.some((id) => !taken.get(id)?.before?.checkpointId || !taken.get(id)?.after?.checkpointId)) {
      // A turn without both checkpoints: everything that differs since the point counts.
      for (const change of checkpoints.changes(before.checkpointId, last)) {
        touched.add(change.path);
      }
    }
    const now = await checkpoints.look(state.cwd, { maxFileBytes: maxFileBytesSetting(store), ...this.on(conversationId) });
    const byYou = new Set(diffManifests(checkpoints.manifest(last), now).map((change) => change.path));
    const leftOut = new Map([...before.tooLarge, ...before.failed].map((file) => [file.path, file.reason]));
    // Every path that differs between the checkpoint and now: what no turn changed was changed
    // outside one (by the person, or by something the agent left running between turns).
    const differing = diffManifests(target, now).map((change) => change.path);
    const files: PlannedFile[] = [];
    const cannot: LeftOut[] = [];
    for (const file of [...new Set([...touched, ...differing])].sort()) {
      const was = target.get(file);
      const is = now.get(file);
      if (leftOut.has(file)) {
        cannot.push({ path: file, reason: `the checkpoint before that message does not hold it (${leftOut.get(file)})` });
        continue;
      }
      const action: Action | null =
        was && !is
          ? 'recreated'
          : was && is && (was.hash !== is.hash || Boolean(was.link) !== Boolean(is.link) || (was.mode & 0o777) !== (is.mode & 0o777))
            ? 'restored'
            : !was && is
              ? 'removed'
              : null;
      if (action) {
        const outsideTurn = !touched.has(file);
        files.push({ path: file, action, changedByYou: !outsideTurn && byYou.has(file), outsideTurn, target: was, now: is });
      }
    }
    return { ...base, files, cannot, unavailable: null, real };
  }

  /** Where a checkpoint was taken, refused when that is not this conversation's folder. */
  private ownCheckpoint(checkpointId: string, cwd: string): { real: string | null } {
    const taken = this.deps.checkpoints.folderOf(checkpointId);
    if (taken.folder !== cwd) {
      throw new InvalidRequestError(`its checkpoint is of another folder (${taken.folder}), not this conversation's (${cwd})`);
    }
    return { real: taken.real };
  }

  /** A planned file's text now and after the rewind, for the dialog's diff (null: absent or not text). */
  private async texts(
    cwd: string,
    file: PlannedFile,
    machine: Machine | undefined,
  ): Promise<{ before: string | null; after: string | null; binary: boolean }> {
    const current = shownText(file.now && !file.now.link ? await this.readNow(cwd, file.path, machine) : null);
    const target = shownText(file.target && !file.target.link ? this.deps.checkpoints.content(file.target.hash) : null);
    return { before: current.text, after: target.text, binary: current.binary || target.binary };
  }

  /** A file's content now, for the dialog, read where the folder is: at most what a diff shows (one byte more marks it too large). */
  private async readNow(cwd: string, relative: string, machine: Machine | undefined): Promise<Buffer | null> {
    const read = await this.deps.checkpoints.readNow(cwd, relative, MAX_TEXT_BYTES, machine);
    return read === null ? null : read.tooLarge ? Buffer.alloc(MAX_TEXT_BYTES + 1) : read.data;
  }
}
