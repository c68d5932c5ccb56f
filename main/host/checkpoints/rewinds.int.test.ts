/**
 * Rewind, undo and branch over real turns (the fake agent writing and removing files, a real
 * folder, real SQLite files): the folder goes back exactly, files the agent never touched and the
 * person's own later changes are left alone, the next prompt carries only the turns before the
 * point, and undo brings everything back.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';
import { sendAndSettle } from '../conversations/settledTurns.kit.test.js';

describe('rewind and branch', () => {
  let host: Host;
  let dataDir: string;
  let work: string;

  beforeEach(() => {
    dataDir = tempDir('rewinds');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
    work = tempDir('rewind-work');
    writeFileSync(path.join(work, 'untouched.txt'), 'the agent never touches this\n');
  });

  afterEach(async () => {
    await host.dispose();
  });

  const send = (conversationId: string, text: string): Promise<string> => sendAndSettle(host, conversationId, text);
  const stateOf = (conversationId: string): TranscriptState =>
    reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
  const lastReply = (conversationId: string): string => {
    const reply = stateOf(conversationId).items.findLast((item) => item.kind === 'agent');
    return reply?.kind === 'agent' ? reply.text : '';
  };
  const listing = (): string[] => readdirSync(work).sort();

  /** Three turns: a.txt written, b.txt written, a.txt removed (by the agent itself). */
  const threeTurns = async (): Promise<{ conversationId: string; turns: string[] }> => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const turns = [
      await send(conversationId, `TURN-ONE write:${path.join(work, 'a.txt')}`),
      await send(conversationId, `TURN-TWO write:${path.join(work, 'b.txt')}`),
      await send(conversationId, `TURN-THREE remove:${path.join(work, 'a.txt')}`),
    ];
    expect(listing()).toEqual(['b.txt', 'untouched.txt']);
    return { conversationId, turns };
  };

  it('previews, rewinds the folder and the conversation, hands the next agent only what came before, and undoes', async () => {
    const { conversationId, turns } = await threeTurns();
    const untouchedBefore = statSync(path.join(work, 'untouched.txt')).mtimeMs;

    const preview = await host.rewinds.preview(conversationId, turns[1]!);
    expect(preview.unavailable).toBeNull();
    expect(preview.setAside.map((turn) => turn.turnId)).toEqual([turns[1], turns[2]]);
    expect(preview.files.map((file) => [file.path, file.action, file.changedByYou])).toEqual([
      ['a.txt', 'recreated', false],
      ['b.txt', 'removed', false],
    ]);
    expect(preview.files[0]).toMatchObject({ before: null, after: 'written by the fake agent' });

    const rewound = await host.rewinds.rewind(conversationId, turns[1]!, { keepFiles: false, overwrite: [] });
    expect(rewound.text).toContain('TURN-TWO');
    expect(rewound.failed).toEqual([]);
    expect(listing()).toEqual(['a.txt', 'untouched.txt']);
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('written by the fake agent');
    expect(statSync(path.join(work, 'untouched.txt')).mtimeMs).toBe(untouchedBefore);
    const state = stateOf(conversationId);
    expect(Object.keys(state.setAside).sort()).toEqual([turns[1], turns[2]].sort());
    expect(state.items.some((item) => item.kind === 'rewind')).toBe(true);

    // The next message reaches a new session, handed turn 1 only.
    await send(conversationId, 'blocks?');
    const blocks = lastReply(conversationId);
    expect(blocks).toContain('TURN-ONE');
    expect(blocks).not.toContain('TURN-TWO');
    expect(blocks).not.toContain('TURN-THREE');
    const handoff = stateOf(conversationId).items.findLast((item) => item.kind === 'handoff');
    expect(handoff?.kind === 'handoff' && handoff.prepared?.fidelity).toBe('handed-off');

    // Undone after a message was sent since: the three turns are back (the new one stays), and so are the files.
    const marker = stateOf(conversationId).items.find((item) => item.kind === 'rewind');
    const rewindId = marker?.kind === 'rewind' ? marker.rewindId : '';
    expect((await host.rewinds.undo(conversationId, rewindId)).failed).toEqual([]);
    expect(listing()).toEqual(['b.txt', 'untouched.txt']);
    expect(stateOf(conversationId).setAside).toEqual({});
    await expect(host.rewinds.undo(conversationId, rewindId)).rejects.toThrow(/undone already/);
  });

  it('undo leaves a file changed since the rewind as it is, and says so', async () => {
    const { conversationId, turns } = await threeTurns();
    const { rewindId } = await host.rewinds.rewind(conversationId, turns[1]!, { keepFiles: false, overwrite: [] });
    writeFileSync(path.join(work, 'a.txt'), 'the person changed a after the rewind\n');
    const { failed } = await host.rewinds.undo(conversationId, rewindId);
    expect(failed).toEqual([{ path: 'a.txt', reason: 'changed since the rewind; left as it is' }]);
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('the person changed a after the rewind\n');
    expect(readFileSync(path.join(work, 'b.txt'), 'utf8')).toBe('written by the fake agent');
  });

  it('"Undo rewind" brings back the files and the set-aside turns', async () => {
    const { conversationId, turns } = await threeTurns();
    const { rewindId } = await host.rewinds.rewind(conversationId, turns[1]!, { keepFiles: false, overwrite: [] });
    expect(listing()).toEqual(['a.txt', 'untouched.txt']);
    expect((await host.rewinds.undo(conversationId, rewindId)).failed).toEqual([]);
    expect(listing()).toEqual(['b.txt', 'untouched.txt']);
    expect(stateOf(conversationId).setAside).toEqual({});
    // Every agent now sees all three turns again.
    await send(conversationId, 'blocks?');
    expect(lastReply(conversationId)).toContain('TURN-THREE');
  });

  it("after 'Undo rewind', the next message goes on in the agent's own session, which saw those turns: no new session, no handoff", async () => {
    const ownData = tempDir('rewinds-sessions');
    registerFakeAgent(ownData, { sessions: true });
    const own = new Host({ dataDir: ownData, homeDir: tempDir('home'), env: definedEnv(process.env) });
    try {
      const { conversationId } = own.conversations.create(FAKE_AGENT_ID, tempDir('rewind-own'));
      await sendAndSettle(own, conversationId, 'TURN-ONE');
      const second = await sendAndSettle(own, conversationId, 'TURN-TWO');
      const bound = (): Array<{ sessionId: string; how: string }> =>
        own.store.readEvents(conversationId).events.flatMap((event) => (event.type === 'session.bound' ? [event.payload] : []));
      const original = bound().at(-1)!.sessionId;
      const { rewindId } = await own.rewinds.rewind(conversationId, second, { keepFiles: true, overwrite: [] });
      await own.rewinds.undo(conversationId, rewindId);
      const handoffs = (): number =>
        reduceAll(emptyTranscript(conversationId), own.store.readEvents(conversationId).events).items.filter(
          (item) => item.kind === 'handoff',
        ).length;
      const before = handoffs();
      await sendAndSettle(own, conversationId, 'TURN-THREE');
      expect(bound().at(-1)).toMatchObject({ sessionId: original, how: expect.stringMatching(/^(live|resume|load)$/) });
      expect(handoffs()).toBe(before);
    } finally {
      await own.dispose();
    }
  });

  it('a file the person changed since the last checkpoint is overwritten only when ticked; "keep the files" changes none', async () => {
    const { conversationId, turns } = await threeTurns();
    writeFileSync(path.join(work, 'b.txt'), 'the person edited b\n');
    const preview = await host.rewinds.preview(conversationId, turns[1]!);
    expect(preview.files.find((file) => file.path === 'b.txt')).toMatchObject({
      action: 'removed',
      changedByYou: true,
      before: 'the person edited b\n',
    });
    await host.rewinds.rewind(conversationId, turns[1]!, { keepFiles: false, overwrite: [] });
    expect(listing()).toEqual(['a.txt', 'b.txt', 'untouched.txt']);
    expect(readFileSync(path.join(work, 'b.txt'), 'utf8')).toBe('the person edited b\n');

    const other = await threeTurnsIn(tempDir('rewind-keep'));
    await host.rewinds.rewind(other.conversationId, other.turns[0]!, { keepFiles: true, overwrite: [] });
    expect(readdirSync(other.work).sort()).toEqual(['b.txt']);
  });

  it('a file it cannot write is named, and the rest is still put back', async () => {
    const { conversationId, turns } = await threeTurns();
    // Where a.txt was, the person made a folder (with a file in it): a.txt cannot be written back.
    mkdirSync(path.join(work, 'a.txt'));
    writeFileSync(path.join(work, 'a.txt', 'inside.txt'), 'in the way\n');
    const rewound = await host.rewinds.rewind(conversationId, turns[1]!, { keepFiles: false, overwrite: [] });
    expect(rewound.failed.map((file) => file.path)).toEqual(['a.txt']);
    expect(rewound.changed).toEqual([{ path: 'b.txt', action: 'removed' }]);
    expect(listing()).toEqual(['a.txt', 'untouched.txt']);
    const marker = stateOf(conversationId).items.find((item) => item.kind === 'rewind');
    expect(marker?.kind === 'rewind' && marker.failed.map((file) => file.path)).toEqual(['a.txt']);
  });

  it('a file the checkpoint before the message did not keep (over the size limit) is named as one it cannot put back', async () => {
    host.store.setSetting('checkpoints.maxFileMegabytes', 1);
    writeFileSync(path.join(work, 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 1));
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const first = await send(conversationId, `write:${path.join(work, 'big.bin')}`);
    const preview = await host.rewinds.preview(conversationId, first);
    expect(preview.cannot).toEqual([
      { path: 'big.bin', reason: expect.stringMatching(/does not hold it \(2097152 bytes, over the limit/) },
    ]);
    expect(preview.files).toEqual([]);
    const rewound = await host.rewinds.rewind(conversationId, first, { keepFiles: false, overwrite: [] });
    expect(rewound.failed.map((file) => file.path)).toEqual(['big.bin']);
    // Left as the agent made it, not removed.
    expect(readFileSync(path.join(work, 'big.bin'), 'utf8')).toBe('written by the fake agent');
  });

  it('branches from a message with the history before it, the original untouched, files restored only when asked', async () => {
    const { conversationId, turns } = await threeTurns();
    const branch = await host.rewinds.branch(conversationId, turns[1]!, { restoreFiles: false });
    expect(branch.text).toContain('TURN-TWO');
    expect(branch.summary.title).toMatch(/\(branch\)$/);
    expect(branch.summary.branchedFrom).toEqual({ conversationId, title: host.store.getSummary(conversationId).title });
    expect(listing()).toEqual(['b.txt', 'untouched.txt']);
    const branchState = stateOf(branch.summary.conversationId);
    expect(branchState.items.filter((item) => item.kind === 'user').map((item) => (item.kind === 'user' ? item.text : ''))).toEqual([
      expect.stringContaining('TURN-ONE'),
    ]);
    expect(Object.keys(branchState.sessions)).toEqual([]);
    // The original keeps its three turns.
    expect(stateOf(conversationId).items.filter((item) => item.kind === 'user')).toHaveLength(3);
    // Its first message gets a new session handed turn 1.
    await send(branch.summary.conversationId, 'blocks?');
    expect(lastReply(branch.summary.conversationId)).toContain('TURN-ONE');
    expect(lastReply(branch.summary.conversationId)).not.toContain('TURN-THREE');

    const restored = await host.rewinds.branch(conversationId, turns[1]!, { restoreFiles: true });
    expect(restored.failed).toEqual([]);
    expect(listing()).toEqual(['a.txt', 'untouched.txt']);

    // Erasing the original keeps the checkpoints the branches still name.
    await host.history.delete(conversationId);
    await host.history.purge(conversationId);
    const before = stateOf(branch.summary.conversationId).turns[Object.keys(branchState.turns)[0]!]?.checkpoints?.before?.checkpointId;
    expect(before).toBeDefined();
    expect(() => host.checkpoints.manifest(before!)).not.toThrow();
  });

  it('an exported conversation re-imports with its rewind and its branch', async () => {
    const { conversationId, turns } = await threeTurns();
    await host.rewinds.rewind(conversationId, turns[2]!, { keepFiles: true, overwrite: [] });
    const branch = await host.rewinds.branch(conversationId, turns[1]!, { restoreFiles: false });
    for (const [id, check] of [
      [conversationId, (state: TranscriptState) => expect(Object.keys(state.setAside)).toEqual([turns[2]])],
      [branch.summary.conversationId, (state: TranscriptState) => expect(Object.keys(state.turns)).toHaveLength(1)],
    ] as const) {
      const imported = host.history.import(host.history.export(id, 'jsonl').content);
      check(stateOf(imported.conversationId));
      expect(stateOf(imported.conversationId).items.some((item) => item.kind === 'rewind')).toBe(id === conversationId);
      if (id !== conversationId) {
        expect(imported.branchedFrom?.conversationId).toBe(conversationId);
      }
    }
  });

  it('without a checkpoint before the message, the conversation still rewinds and says the files cannot be put back', async () => {
    host.store.setSetting('checkpoints.off', true);
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const first = await send(conversationId, 'hello');
    const preview = await host.rewinds.preview(conversationId, first);
    expect(preview.unavailable).toMatch(/no checkpoint was taken before that message/);
    const rewound = await host.rewinds.rewind(conversationId, first, { keepFiles: false, overwrite: [] });
    expect(rewound.failed[0]?.reason).toMatch(/cannot be put back/);
    expect(existsSync(path.join(work, 'untouched.txt'))).toBe(true);
  });

  /** The three turns in another folder. */
  async function threeTurnsIn(folder: string): Promise<{ conversationId: string; turns: string[]; work: string }> {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, folder);
    const turns = [
      await send(conversationId, `write:${path.join(folder, 'a.txt')}`),
      await send(conversationId, `write:${path.join(folder, 'b.txt')}`),
      await send(conversationId, `remove:${path.join(folder, 'a.txt')}`),
    ];
    return { conversationId, turns, work: folder };
  }
});
