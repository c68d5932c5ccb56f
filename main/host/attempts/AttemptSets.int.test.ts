/**
 * The attempt sets' read model over a real SQLite store and committer: a conversation's log is
 * read once, the first time it is asked about; what is committed after is folded in without
 * reading the log again; an erased conversation is forgotten (asked about again, it is read anew).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { Committer } from '../conversations/Committer.js';
import { EventStore } from '../store/EventStore.js';
import { AttemptSets } from './AttemptSets.js';

const ATTEMPT = { agentId: 'a', agentName: 'A', conversationId: 'ca', folder: '/copies/a', machine: 'local', kind: 'copy' as const };

describe('the attempt sets read model', () => {
  let store: EventStore;
  let committer: Committer;
  let sets: AttemptSets;

  beforeEach(() => {
    const dataDir = tempDir('attempt-sets');
    store = new EventStore(dataDir);
    committer = new Committer(store, () => {});
    sets = new AttemptSets({
      store,
      committer,
      dataDir,
      machine: new LocalMachine({ PATH: process.env.PATH ?? '' }, dataDir, 'local', 'This computer', dataDir),
    });
    committer.commit('c1', [{ type: 'conversation.created', payload: { title: '', agentId: 'a', agentName: 'A', cwd: '/w' } }], 0);
    committer.commit('c1', [
      {
        type: 'attempts.started',
        payload: {
          attemptsId: 's1',
          text: 'try',
          attempts: [
            { ...ATTEMPT, attemptId: 'x' },
            { ...ATTEMPT, attemptId: 'y' },
          ],
        },
      },
    ]);
  });
  afterEach(() => store.close());

  it('reads a log once and folds what is committed after', () => {
    const reads = vi.spyOn(store, 'readEvents');
    expect(sets.asking('c1').open.map((set) => set.attemptsId)).toEqual(['s1']);
    expect(reads).toHaveBeenCalledTimes(1);
    committer.commit('c1', [
      { type: 'attempt.prepared', payload: { attemptsId: 's1', attemptId: 'x', checkpointId: 'k', fromSeq: 3 } },
      { type: 'attempt.failed', payload: { attemptsId: 's1', attemptId: 'y', reason: 'no copy' } },
      { type: 'attempt.continued', payload: { attemptsId: 's1', attemptId: 'x', conversationId: 'cx', branch: 'baton/c1/a' } },
    ]);
    const { set, attempt } = sets.find('c1', 's1', 'x');
    expect(attempt).toMatchObject({ state: 'prepared', checkpointId: 'k', continuedAs: 'cx', branch: 'baton/c1/a' });
    expect(set.attempts[1]).toMatchObject({ state: 'failed', reason: 'no copy' });
    committer.commit('c1', [{ type: 'attempts.removed', payload: { attemptsId: 's1', failed: [] } }]);
    expect(sets.asking('c1').open).toEqual([]);
    expect(sets.lookup('c1', 's1')?.removed).toEqual({ attemptsId: 's1', failed: [] });
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('forgets an erased conversation, and names what it cannot find', () => {
    sets.of('c1');
    committer.commit('c1', [{ type: 'conversation.deleted', payload: {} }]);
    store.purge('c1');
    committer.forget('c1');
    expect(sets.lookup('c1', 's1')).toBeUndefined();
    expect(() => sets.find('c1', 's1')).toThrow();
    expect(() => sets.find('nowhere', 's1')).toThrow();
  });

  it("keeps where a conversation works and its standing as its summary's lifecycle says it, without reading the summary", () => {
    const summaries = vi.spyOn(store, 'getSummary');
    /** The standing the model gives, checked to be read without the store's summary. */
    const standing = (): string => {
      summaries.mockClear();
      const { standing: found } = sets.asking('c1');
      expect(summaries).not.toHaveBeenCalled();
      return found;
    };
    expect(sets.asking('c1').place).toEqual({ conversationId: 'c1', cwd: '/w', machine: 'local' });
    expect(standing()).toBe('open');
    const lifecycles: string[] = [];
    for (const type of ['conversation.archived', 'conversation.deleted', 'conversation.restored', 'conversation.unarchived'] as const) {
      committer.commit('c1', [{ type, payload: {} }]);
      expect(standing()).toBe(store.getSummary('c1').lifecycle === 'deleted' ? 'deleted' : 'open');
      lifecycles.push(store.getSummary('c1').lifecycle);
    }
    expect(lifecycles).toEqual(['archived', 'deleted', 'active', 'active']);
    committer.commit('c1', [
      {
        type: 'conversation.attempt',
        payload: { ofConversationId: 'c0', attemptsId: 's0', attemptId: 'a0', fromSeq: 1, agentId: 'a', chosen: {} },
      },
    ]);
    expect(standing()).toBe('attempt');
    committer.commit('c1', [{ type: 'conversation.branched', payload: { fromConversationId: 'c0', fromTitle: 'T', fromTurnId: 't0' } }]);
    expect(standing()).toBe('open');
    expect(() => sets.asking('nowhere')).toThrow(/nowhere/);
  });

  it('names a missing ask or attempt', () => {
    expect(() => sets.find('c1', 'other')).toThrow(/other/);
    expect(() => sets.find('c1', 's1', 'z')).toThrow(/z/);
  });
});
