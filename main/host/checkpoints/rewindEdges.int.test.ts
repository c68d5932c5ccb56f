/**
 * The edges of rewind the trust review found, over real turns of the fake agent and real folders:
 * a file the agent's background job changed between turns is listed as "changed outside a turn"
 * and put back only when ticked (and shown on the next turn's card); an imported conversation
 * writes nothing before it is confirmed, and never with a checkpoint of another folder; and a turn
 * whose "before" checkpoint finished after its prompt went out is marked approximate.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { until } from '../../../e2e/fixtures/until.js';
import { Host, definedEnv } from '../Host.js';
import { sendAndSettle } from '../conversations/settledTurns.kit.test.js';
import { turnChanges } from './turnChanges.js';

describe('rewind edges', () => {
  let host: Host;
  let work: string;

  beforeEach(() => {
    const dataDir = tempDir('rewind-edges');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
    work = tempDir('rewind-edges-work');
  });
  afterEach(async () => {
    await host.dispose();
  });

  const send = (conversationId: string, text: string): Promise<string> => sendAndSettle(host, conversationId, text);
  const changesOf = (conversationId: string, turnId: string) =>
    turnChanges(host.checkpoints, host.store.readEvents(conversationId).events, turnId);

  it('lists a file changed between turns as changed outside a turn, and puts it back only when ticked', async () => {
    writeFileSync(path.join(work, 'b.txt'), 'the person wrote this\n');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const first = await send(conversationId, `TURN-ONE bg300[printf 'the agent overwrote it\\n' > b.txt]`);
    await until(() => readFileSync(path.join(work, 'b.txt'), 'utf8').startsWith('the agent'), 5_000);
    const second = await send(conversationId, `TURN-TWO write:${path.join(work, 'a.txt')}`);

    // The next turn's card shows what changed since the last one ended.
    expect(changesOf(conversationId, second).sinceLastTurn.map((change) => [change.path, change.change])).toEqual([['b.txt', 'modified']]);
    expect(changesOf(conversationId, second).changes.map((change) => change.path)).toEqual(['a.txt']);

    const preview = await host.rewinds.preview(conversationId, first);
    expect(preview.files.map((file) => [file.path, file.action, file.outsideTurn, file.changedByYou])).toEqual([
      ['a.txt', 'removed', false, false],
      ['b.txt', 'restored', true, false],
    ]);
    expect(preview.files.find((file) => file.path === 'b.txt')).toMatchObject({
      before: 'the agent overwrote it\n',
      after: 'the person wrote this\n',
    });

    // Not ticked: left as it is.
    const kept = await host.rewinds.rewind(conversationId, first, { keepFiles: false, overwrite: [] });
    expect(kept.changed).toEqual([{ path: 'a.txt', action: 'removed' }]);
    expect(readFileSync(path.join(work, 'b.txt'), 'utf8')).toBe('the agent overwrote it\n');
    await host.rewinds.undo(conversationId, kept.rewindId);

    // Ticked: put back.
    const restored = await host.rewinds.rewind(conversationId, first, { keepFiles: false, overwrite: ['b.txt'] });
    expect(restored.changed).toEqual([
      { path: 'a.txt', action: 'removed' },
      { path: 'b.txt', action: 'restored' },
    ]);
    expect(readFileSync(path.join(work, 'b.txt'), 'utf8')).toBe('the person wrote this\n');
  });

  it('writes nothing for an imported conversation before it is confirmed, nor with a checkpoint of another folder', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const first = await send(conversationId, `TURN-ONE write:${path.join(work, 'a.txt')}`);
    await send(conversationId, `TURN-TWO write:${path.join(work, 'b.txt')}`);
    const exported = host.history.export(conversationId, 'jsonl').content;

    const imported = host.history.import(exported).conversationId;
    for (const attempt of [
      () => host.rewinds.preview(imported, first),
      () => host.rewinds.rewind(imported, first, { keepFiles: false, overwrite: [] }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'ImportNotConfirmed' });
    }

    // The same file, edited to name another folder: its checkpoints are of this one.
    const elsewhere = tempDir('rewind-edges-elsewhere');
    const edited = host.history.import(exported.split(JSON.stringify(work)).join(JSON.stringify(elsewhere))).conversationId;
    await host.importReview.confirm(edited, elsewhere);
    // A folder that is not there is refused on confirming, as any folder is; the conversation stays unconfirmed.
    const gone = path.join(elsewhere, 'gone');
    const missing = host.history.import(exported.split(JSON.stringify(work)).join(JSON.stringify(gone))).conversationId;
    await expect(host.importReview.confirm(missing, gone)).rejects.toThrow(`The working folder ${gone} does not exist.`);
    expect(() => host.importReview.requireConfirmed(missing)).toThrow(expect.objectContaining({ code: 'ImportNotConfirmed' }));
    const preview = await host.rewinds.preview(edited, first);
    expect(preview.files).toEqual([]);
    expect(preview.unavailable).toBe(
      `The files cannot be put back: its checkpoint is of another folder (${work}), not this conversation's (${elsewhere}).`,
    );
    await host.rewinds.rewind(edited, first, { keepFiles: false, overwrite: [] });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("marks a turn's file list approximate when its checkpoint finished after the prompt went out", async () => {
    // Enough files that looking at them all takes longer than the prompt waits (250 ms).
    for (let folder = 0; folder < 40; folder += 1) {
      const dir = path.join(work, `f${folder}`);
      mkdirSync(dir);
      for (let file = 0; file < 500; file += 1) {
        writeFileSync(path.join(dir, `${file}.txt`), `${folder}/${file} ${'x'.repeat(512)}\n`);
      }
    }
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const turnId = await send(conversationId, 'hello');
    expect(changesOf(conversationId, turnId).approximate).toBe(true);
    // A small folder's checkpoint is done before the prompt goes out.
    const small = host.conversations.create(FAKE_AGENT_ID, tempDir('rewind-edges-small')).conversationId;
    expect(changesOf(small, await send(small, 'hello')).approximate).toBe(false);
  }, 60_000);
});
