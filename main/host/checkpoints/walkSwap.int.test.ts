/**
 * Checkpoints and a folder swapped for a link while Baton looks at it (the trust review's mid-walk
 * swap): the fake agent leaves a background job that keeps replacing `zzz` with a link to a folder
 * outside (standing in for ~/.ssh) and back, while checkpoints are taken. No file from outside
 * ever reaches `checkpoints.sqlite`. And one conversation's stuck checkpoint neither holds up
 * another conversation's rewind nor runs for ever.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventDraft } from '../../../app/events/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { until } from '../../../e2e/fixtures/until.js';
import { Host, definedEnv } from '../Host.js';
import type { CheckpointStore } from './CheckpointStore.js';
import { TurnCheckpoints } from './TurnCheckpoints.js';

const MARKER = 'PRIVATE KEY of the person, outside the folder';

describe('a folder swapped for a link mid-walk', () => {
  let host: Host;
  let dataDir: string;

  beforeEach(() => {
    dataDir = tempDir('swap');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
  });
  afterEach(async () => {
    await host.dispose();
  });

  it('never puts a file from outside into the checkpoints', async () => {
    const work = tempDir('swap-work');
    const outside = tempDir('swap-outside');
    writeFileSync(path.join(outside, 'id_rsa'), MARKER);
    mkdirSync(path.join(work, 'zzz'));
    writeFileSync(path.join(work, 'zzz', 'id_rsa'), 'a decoy the agent planted');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    // About four seconds of swaps, half the time a link.
    const loop = `i=0; while [ $i -lt 200 ]; do mv zzz zzz.real; ln -s ${outside} zzz; sleep 0.01; rm zzz; mv zzz.real zzz; sleep 0.01; i=$((i+1)); done; touch swaps-done`;
    await host.turns.send(conversationId, `bg0[${loop}]`);
    await host.turns.idle();
    let taken = 0;
    while (!existsSync(path.join(work, 'swaps-done'))) {
      await host.checkpoints.take(work);
      taken += 1;
    }
    expect(taken).toBeGreaterThan(10);
    await host.turnCheckpoints.idle();

    const db = new Database(path.join(dataDir, 'checkpoints.sqlite'), { readonly: true });
    try {
      const blobs = (db.prepare('SELECT data FROM blobs').all() as Array<{ data: Buffer }>).map((row) =>
        inflateRawSync(row.data).toString('utf8'),
      );
      expect(blobs.some((text) => text.includes('a decoy the agent planted'))).toBe(true);
      expect(blobs.filter((text) => text.includes(MARKER))).toEqual([]);
    } finally {
      db.close();
    }
  }, 60_000);
});

describe('a checkpoint that does not finish', () => {
  it('holds up only its own conversation, and is stopped at its time limit with why', async () => {
    const dataDir = tempDir('stuck');
    const host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
    try {
      const recorded: Array<{ conversationId: string; draft: EventDraft }> = [];
      // A store whose checkpoints of the folder "stuck" never finish until stopped (a FIFO, a hung mount).
      const store = {
        take: (folder: string, options: { signal?: AbortSignal }) =>
          folder === '/stuck'
            ? new Promise((_, reject) => options.signal?.addEventListener('abort', () => reject(options.signal?.reason as Error)))
            : Promise.resolve({ checkpointId: 'ok', folder, files: 0, bytes: 0, tooLarge: [], failed: [], read: 0, reused: 0 }),
      } as unknown as CheckpointStore;
      const checkpoints = new TurnCheckpoints(
        store,
        host.store,
        (conversationId, drafts) => drafts.forEach((draft) => recorded.push({ conversationId, draft })),
        '/nowhere',
        () => {},
        300,
      );
      const stuck = checkpoints.take('A', 'turn-a', '/stuck', 'before');
      void checkpoints.take('B', 'turn-b', '/fine', 'before');
      // B's own checkpoints are done at once, whatever A's does.
      const waited = await Promise.race([
        checkpoints.idle('B').then(() => 'B is idle'),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 200)),
      ]);
      expect(waited).toBe('B is idle');
      await until(() => recorded.some((entry) => entry.conversationId === 'A'), 5_000);
      await stuck;
      const a = recorded.find((entry) => entry.conversationId === 'A')?.draft;
      expect(a).toMatchObject({
        type: 'checkpoint.taken',
        payload: { turnId: 'turn-a', phase: 'before', error: 'it took longer than 0 s, so Baton stopped looking at the folder' },
      });
    } finally {
      await host.dispose();
    }
  });
});
