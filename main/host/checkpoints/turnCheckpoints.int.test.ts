/**
 * Checkpoints around real turns (the fake agent, a real SQLite file): one before and one after
 * each turn, the files the turn changed by any means, and a checkpoint that cannot be taken
 * failing nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import type { Result } from '../../../app/ipc/index.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';

describe('checkpoints around turns', () => {
  let host: Host;
  let homeDir: string;
  let dataDir: string;

  beforeEach(() => {
    dataDir = tempDir('turn-checkpoints');
    registerFakeAgent(dataDir);
    homeDir = tempDir('home');
    host = new Host({ dataDir, homeDir, env: definedEnv(process.env) });
  });

  afterEach(async () => {
    await host.dispose();
  });

  const changesOf = async (conversationId: string, turnId: string): Promise<Result<'listTurnChanges'>> => {
    const answer = await host.handle('listTurnChanges', { conversationId, turnId });
    if (!answer.ok) {
      throw new Error(answer.error.message);
    }
    return answer.result as Result<'listTurnChanges'>;
  };

  it('each turn has a checkpoint before and after, and lists the files it changed with both versions', async () => {
    const work = tempDir('work');
    writeFileSync(path.join(work, 'kept.txt'), 'unchanged\n');
    writeFileSync(path.join(work, 'notes.md'), 'old notes\n');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const { turnId } = await host.turns.send(conversationId, `write:${path.join(work, 'notes.md')}`);
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    expect(state.turns[turnId]?.checkpoints?.before).toMatchObject({ files: 2, tooLarge: [], failed: [] });
    // The "after" checkpoint says how many files the turn changed (the card stays quiet for none).
    expect(state.turns[turnId]?.checkpoints?.after).toMatchObject({ files: 2, changed: 1 });
    const { changes, unavailable } = await changesOf(conversationId, turnId);
    expect(unavailable).toBeNull();
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ path: 'notes.md', change: 'modified', before: 'old notes\n', binary: false });
    expect(changes[0]?.after).not.toBe('old notes\n');

    // A turn that changes nothing lists nothing.
    const second = await host.turns.send(conversationId, 'hello');
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    expect(await changesOf(conversationId, second.turnId)).toEqual({
      changes: [],
      sinceLastTurn: [],
      approximate: false,
      unavailable: null,
    });
    const after = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events).turns[second.turnId]?.checkpoints
      ?.after;
    expect(after).toMatchObject({ changed: 0 });
  });

  it('between turns of a live session only what changed is looked at; a change made while the host was closed is in the next checkpoint', async () => {
    const work = tempDir('work-restart');
    writeFileSync(path.join(work, 'notes.md'), 'first\n');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    await host.turns.send(conversationId, 'hello');
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    // The session stays live: the next turn's checkpoints look only at the paths the watcher reported.
    const second = await host.turns.send(conversationId, `write:${path.join(work, 'notes.md')}`);
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    expect(host.checkpoints.counts().watched).toBeGreaterThanOrEqual(2);
    expect((await changesOf(conversationId, second.turnId)).changes).toEqual([expect.objectContaining({ path: 'notes.md' })]);

    await host.dispose();
    writeFileSync(path.join(work, 'notes.md'), 'changed while Baton was closed\n');
    host = new Host({ dataDir, homeDir, env: definedEnv(process.env) });
    const third = await host.turns.send(conversationId, 'hello again');
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    // Its first checkpoint walked: the folder had not been watched since the last one.
    expect(Object.keys(host.checkpoints.counts().reasons)).toEqual([expect.stringMatching(/not watched/)]);
    const { sinceLastTurn } = await changesOf(conversationId, third.turnId);
    expect(sinceLastTurn).toEqual([expect.objectContaining({ path: 'notes.md', after: 'changed while Baton was closed\n' })]);
  });

  it('erasing a conversation for good removes its checkpoints', async () => {
    const work = tempDir('work-purge');
    writeFileSync(path.join(work, 'a.txt'), 'a');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const { turnId } = await host.turns.send(conversationId, 'hello');
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    const ids = [state.turns[turnId]?.checkpoints?.before?.checkpointId, state.turns[turnId]?.checkpoints?.after?.checkpointId];
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    await host.history.delete(conversationId);
    await host.history.purge(conversationId);
    for (const id of ids) {
      expect(() => host.checkpoints.manifest(id!)).toThrow();
    }
  });

  it('a folder that cannot be checkpointed says so on the turn and the turn still completes', async () => {
    mkdirSync(path.join(homeDir, 'project'), { recursive: true });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, homeDir);
    const { turnId } = await host.turns.send(conversationId, 'hello from home');
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    expect(state.turns[turnId]?.status).toBe('completed');
    expect(state.turns[turnId]?.checkpoints?.before?.error).toMatch(/as broad as the whole disk or your home folder/);
    expect((await changesOf(conversationId, turnId)).unavailable).toMatch(/^No checkpoint could be taken/);
  });

  it('files over the size limit are listed on the turn, not kept', async () => {
    const work = tempDir('work-large');
    writeFileSync(path.join(work, 'small.txt'), 'small');
    writeFileSync(path.join(work, 'huge.bin'), Buffer.alloc(2 * 1024 * 1024));
    host.store.setSetting('checkpoints.maxFileMegabytes', 1);
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const { turnId } = await host.turns.send(conversationId, 'hello');
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    expect(state.turns[turnId]?.checkpoints?.before).toMatchObject({
      files: 1,
      tooLarge: [{ path: 'huge.bin', reason: expect.stringContaining('over the limit') }],
    });
  });

  it('a full disk or an unreadable file fails no turn: the turn card says so', async () => {
    const work = tempDir('work-faults');
    writeFileSync(path.join(work, 'a.txt'), 'a');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    // Fault injection (root reads every file, and no disk here fills up on demand): the store's
    // own `take` is made to fail as a full disk does, then to report a file it could not read.
    const take = host.checkpoints.take.bind(host.checkpoints);
    host.checkpoints.take = () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    const full = await host.turns.send(conversationId, 'hello on a full disk');
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    host.checkpoints.take = async (folder, options) => ({
      ...(await take(folder, options)),
      failed: [{ path: 'secret.txt', reason: 'EACCES' }],
    });
    const unreadable = await host.turns.send(conversationId, 'hello with an unreadable file');
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    expect(state.turns[full.turnId]?.status).toBe('completed');
    expect(state.turns[full.turnId]?.checkpoints?.before?.error).toMatch(/no space left on device/);
    expect((await changesOf(conversationId, full.turnId)).unavailable).toMatch(/no space left on device/);
    expect(state.turns[unreadable.turnId]?.status).toBe('completed');
    expect(state.turns[unreadable.turnId]?.checkpoints?.before?.failed).toEqual([{ path: 'secret.txt', reason: 'EACCES' }]);
  });
});
