/**
 * Importing sessions an agent keeps itself (started in its own CLI or another editor) into the
 * history: `session/list` to show them, `session/load` to replay one into a new conversation
 * bound to it, so the next message continues it. An agent session is imported at most once.
 */
import path from 'node:path';
import { InvalidRequestError, UnsupportedInputError } from '../../../app/errors.js';
import type { EventDraft } from '../../../app/events/index.js';
import { newId } from '../../../app/ids.js';
import type { AgentSession } from '../../../app/ipc/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import type { SessionUpdate } from '../acp/AgentConnection.js';
import { replayToTurns } from '../acp/replayToTurns.js';
import type { AgentAccess } from '../agents/AgentAccess.js';
import { existsOn, type Machine } from '../machine/Machine.js';
import type { EventStore } from '../store/EventStore.js';
import type { Committer } from './Committer.js';

/** Sessions listed at most, newest first. */
const MAX_SESSIONS = 500;

/** Lists and imports an agent's own sessions. */
export class SessionImport {
  /** Imports under way, by agent and session: a second request waits for the first. */
  private readonly importing = new Map<string, Promise<{ conversation: ConversationSummary; alreadyImported: boolean }>>();

  constructor(
    private readonly store: EventStore,
    private readonly committer: Committer,
    private readonly access: AgentAccess,
    /** The machine the agents whose sessions are imported run on: this computer. */
    private readonly machine: Pick<Machine, 'stat'>,
  ) {}

  /** The agent's sessions, each with the conversation it is already imported into, if any. */
  async list(agentId: string, cwd: string | undefined): Promise<{ sessions: AgentSession[]; truncated: boolean }> {
    if (cwd !== undefined && !path.isAbsolute(cwd)) {
      throw new InvalidRequestError(`The folder must be an absolute path; "${cwd}" is not.`);
    }
    const { connection, release } = await this.access.borrow(agentId);
    try {
      if (!connection.canListSessions) {
        throw new UnsupportedInputError(connection.agentName, 'listing its sessions', 'it does not offer session/list');
      }
      const listed = await connection.listSessions(cwd, MAX_SESSIONS + 1);
      const bound = this.store.sessionsBoundTo(agentId);
      const sessions = listed
        .slice(0, MAX_SESSIONS)
        .map((info) => ({
          sessionId: info.sessionId,
          cwd: info.cwd,
          title: info.title ?? null,
          updatedAt: info.updatedAt ?? null,
          conversationId: bound.get(info.sessionId) ?? null,
        }))
        .sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
      return { sessions, truncated: listed.length > MAX_SESSIONS };
    } finally {
      await release();
    }
  }

  /** Imports one session (or returns the conversation it was imported into before). */
  import(agentId: string, sessionId: string, cwd: string): Promise<{ conversation: ConversationSummary; alreadyImported: boolean }> {
    const key = `${agentId}\u0000${sessionId}`;
    const pending = this.importing.get(key) ?? this.importOnce(agentId, sessionId, cwd).finally(() => this.importing.delete(key));
    this.importing.set(key, pending);
    return pending;
  }

  private async importOnce(
    agentId: string,
    sessionId: string,
    cwd: string,
  ): Promise<{ conversation: ConversationSummary; alreadyImported: boolean }> {
    const existing = this.store.sessionsBoundTo(agentId).get(sessionId);
    if (existing) {
      return { conversation: this.store.getSummary(existing), alreadyImported: true };
    }
    if (!path.isAbsolute(cwd)) {
      throw new InvalidRequestError(`The session's folder must be an absolute path; "${cwd}" is not.`);
    }
    if (!(await existsOn(this.machine, cwd))) {
      throw new InvalidRequestError(
        `The session's folder ${cwd} no longer exists, so the session cannot be continued; restore the folder to import it.`,
      );
    }
    const replayed: SessionUpdate[] = [];
    const { adapter, connection, route, release } = await this.access.borrow(agentId, { cwd, loadsSession: true });
    const unroute = route(sessionId, (update) => replayed.push(update));
    let how: 'load' | 'resume';
    let title: string | null = null;
    try {
      if (connection.canLoadSession) {
        await connection.loadSession(sessionId, cwd, []);
        how = 'load';
      } else if (connection.canResumeSession) {
        await connection.resumeSession(sessionId, cwd, []);
        how = 'resume';
      } else {
        throw new UnsupportedInputError(connection.agentName, 'importing a session', 'it can neither load nor resume sessions');
      }
      for (const update of replayed) {
        if (update.sessionUpdate === 'session_info_update' && update.title) {
          title = update.title;
        }
      }
      await connection.closeSession(sessionId).catch(() => undefined);
    } finally {
      unroute();
      await release();
    }
    const agent = { agentId, agentName: adapter.displayName };
    const agentVersion = connection.initialized.agentInfo?.version;
    const turns = replayToTurns(replayed, agent, newId, adapter.isOwnReplayedMessage);
    const drafts: EventDraft[] = [
      { type: 'conversation.created', payload: { title: title ?? '', ...agent, cwd } },
      ...turns,
      { type: 'session.bound', payload: { agentId, sessionId, how, ...(agentVersion ? { agentVersion } : {}) } },
      {
        type: 'notice',
        payload: {
          severity: 'info',
          text:
            how === 'load'
              ? `Imported from ${adapter.displayName}'s own sessions. New messages continue that session.`
              : `Imported from ${adapter.displayName}'s own sessions. ${adapter.displayName} does not replay history, so earlier messages are not shown; new messages continue that session.`,
        },
      },
    ];
    // A second import that raced this one (another window) found nothing bound yet: check again at commit time.
    const raced = this.store.sessionsBoundTo(agentId).get(sessionId);
    if (raced) {
      return { conversation: this.store.getSummary(raced), alreadyImported: true };
    }
    const { summary } = this.committer.commit(newId(), drafts, 0);
    return { conversation: summary, alreadyImported: false };
  }
}
