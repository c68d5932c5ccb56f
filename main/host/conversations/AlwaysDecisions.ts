/**
 * The person's "always" answers to permission questions, kept in the data folder's database so
 * Settings › Permissions can list them and the person can revoke them. Revoking records
 * `permission.revoked` in the conversation where the answer was given and has Baton start that
 * agent afresh in that folder for its next turn, so rules it kept for the session are gone; what
 * it may have saved in its own files is named, not edited.
 */
import path from 'node:path';
import { z } from 'zod';
import { alwaysDecisionSchema, type AlwaysDecision } from '../../../app/agents/alwaysDecisions.js';
import { NotFoundError } from '../../../app/errors.js';
import { newId } from '../../../app/ids.js';
import { LOCAL_MACHINE_ID } from '../../../app/ids.js';
import type { AgentCatalog } from '../agents/AgentCatalog.js';
import { existsOn, pathsOf, type Machine } from '../machine/Machine.js';
import type { EventStore } from '../store/EventStore.js';
import type { Committer } from './Committer.js';
import type { LiveSessions } from './LiveSessions.js';
import type { AnsweredPermission } from './SessionPermissions.js';

const KEY = 'permissions.always';
const listSchema = z.array(alwaysDecisionSchema);

/** The list, over the store. */
export class AlwaysDecisions {
  constructor(
    private readonly store: EventStore,
    private readonly catalog: AgentCatalog,
    private readonly committer: Committer,
    private readonly sessions: Pick<LiveSessions, 'restartAgents'>,
    /** The machine a folder is on, when it is open now (undefined: not open; its files are not looked at). */
    private readonly machineOf: (machineId: string) => Pick<Machine, 'stat' | 'platform'> | undefined,
  ) {}

  /** Every remembered answer, newest first. */
  list(): AlwaysDecision[] {
    return this.store.getSetting(KEY, listSchema, []);
  }

  /** Remembers an answer when the option chosen is an "always" one; other answers change nothing. */
  noteAnswer(conversationId: string, requestId: string, answered: AnsweredPermission): void {
    const { option } = answered;
    if (option.kind !== 'allow_always' && option.kind !== 'reject_always') {
      return;
    }
    const summary = this.store.getSummary(conversationId);
    const decision: AlwaysDecision = {
      id: newId(),
      agentId: summary.agentId,
      agentName: summary.agentName,
      cwd: summary.cwd,
      ...(summary.machine === LOCAL_MACHINE_ID ? {} : { machine: summary.machine }),
      ...(answered.toolKind ? { toolKind: answered.toolKind } : {}),
      title: answered.title,
      optionName: option.name,
      decision: option.kind === 'allow_always' ? 'allow' : 'reject',
      conversationId,
      turnId: answered.turnId,
      requestId,
      decidedAt: new Date().toISOString(),
    };
    this.store.setSetting(KEY, [decision, ...this.list()]);
  }

  /** Forgets one answer; returns what the agent may still keep, in plain words. */
  async revoke(id: string): Promise<{ note: string }> {
    const all = this.list();
    const decision = all.find((candidate) => candidate.id === id);
    if (!decision) {
      throw new NotFoundError('remembered permission answer', id);
    }
    const note = await this.noteFor(decision);
    this.store.setSetting(
      KEY,
      all.filter((candidate) => candidate !== decision),
    );
    this.sessions.restartAgents(decision.agentId, decision.cwd, decision.machine ?? LOCAL_MACHINE_ID);
    try {
      this.committer.commit(decision.conversationId, [
        { type: 'permission.revoked', payload: { turnId: decision.turnId, requestId: decision.requestId, note: note.kept } },
      ]);
    } catch (error) {
      // The conversation was erased since: the list is all there is to change.
      if (!(error instanceof NotFoundError)) {
        throw error;
      }
    }
    return { note: note.kept === null ? note.restart : `${note.restart} ${note.kept}` };
  }

  /** The agent's own rule files in the folder: those that are there, or, with its machine not open, those it may have written. */
  private async noteFor(decision: AlwaysDecision): Promise<{ restart: string; kept: string | null }> {
    const restart = `${decision.agentName} starts afresh for its next message in this folder: rules it kept for the session are gone.`;
    const adapter = this.catalog.adapters().find((candidate) => candidate.agentId === decision.agentId);
    const machine = this.machineOf(decision.machine ?? LOCAL_MACHINE_ID);
    const candidates = (adapter?.savedRuleFiles ?? []).map((file) => (machine ? pathsOf(machine) : path.posix).join(decision.cwd, file));
    const there = machine ? await Promise.all(candidates.map((file) => existsOn(machine, file))) : candidates.map(() => true);
    const files = candidates.filter((_file, index) => there[index]);
    const kept =
      files.length === 0
        ? null
        : `${decision.agentName} may also have saved the rule in ${files.join(', ')}; Baton does not change the agent's own files.`;
    return { restart, kept };
  }
}
