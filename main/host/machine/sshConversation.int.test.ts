/**
 * A conversation whose machine is reached over ssh (a real sshd on 127.0.0.1, run from the test's
 * own folder): the agent (the fake agent) runs under sshd, not under the host; a file mentioned
 * with @ is offered and checked through that machine; a permission
 * question reaches the person and waits for them; a file the agent writes through the client and a
 * file its own shell writes are in the turns' checkpoints; a rewind removes both. The scans, the
 * folder watch and the confined writes all cross the machine protocol over the ssh channel. When
 * the ssh client carrying the channel is killed while a reply streams, the agent keeps running
 * there, Baton reconnects by itself, and every chunk is in the transcript exactly once.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { ancestors, parentOf } from '../../../e2e/fixtures/processTree.js';
import { sshdUnavailable } from '../../../e2e/fixtures/sshd.js';
import { until } from '../../../e2e/fixtures/until.js';
import { Host, definedEnv } from '../Host.js';
import { sendAndSettle } from '../conversations/settledTurns.kit.test.js';
import type { SshMachine } from './SshMachine.js';
import { dropMidReply, handTo, sshTestMachine, tempDirOn } from './testMachines.kit.test.js';

const unavailable = sshdUnavailable();
const env = definedEnv(process.env);

describe.skipIf(unavailable !== undefined)('a conversation on a machine over ssh', () => {
  let machine: SshMachine;
  let host: Host;

  beforeAll(async () => {
    // Disposing the machine ends its sshd too.
    machine = await sshTestMachine(env, 'ssh-conversation');
    // The fake agent there logs to the data folder: the remote's account writes there.
    const dataDir = tempDir('ssh-conversation-data');
    registerFakeAgent(dataDir);
    handTo(machine, dataDir);
    host = new Host({ dataDir, homeDir: tempDir('home'), env, machine });
  }, 120_000);

  afterAll(async () => {
    await host?.dispose();
    await machine?.dispose();
  });

  const transcript = (conversationId: string): TranscriptState =>
    reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);

  const send = (conversationId: string, text: string): Promise<string> => sendAndSettle(host, conversationId, text);

  it('runs the agent under sshd, asks the person, and rewinds what the agent and its shell wrote', async () => {
    const work = tempDir('ssh-conversation-work');
    writeFileSync(path.join(work, 'kept.txt'), 'kept\n');
    handTo(machine, work);
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const first = await send(conversationId, 'hello');

    // A file mentioned with @ is offered, and sent, from the folder on that machine.
    expect(await host.handle('listFolderFiles', { cwd: work, query: 'kep', machineId: machine.id })).toEqual({
      ok: true,
      result: { files: ['kept.txt'], truncated: false },
    });
    const mentioned = await host.handle('sendMessage', {
      conversationId,
      text: 'see @kept.txt',
      attachments: [{ type: 'file', path: 'kept.txt' }],
    });
    expect(mentioned.ok).toBe(true);
    await host.turns.idle();
    const started = host.store.readEvents(conversationId).events.findLast((event) => event.type === 'turn.started');
    expect(started?.payload).toMatchObject({ attachments: [{ type: 'file', name: 'kept.txt', size: 5 }] });

    // The agent's parent is the machine server there, started under sshd's session.
    const agentPid = host.pool.table()[0]?.pid ?? 0;
    expect(parentOf(agentPid)).toBe(machine.serverPid);
    expect(ancestors(machine.serverPid).map((process) => process.name)).toContain('sshd');

    // A permission question reaches the person and waits for them.
    const { turnId: asking } = await host.turns.send(conversationId, 'please ask permission');
    const request = await until(() => transcript(conversationId).items.find((item) => item.kind === 'permission'), 30_000);
    expect(transcript(conversationId).turns[asking]?.status).toBe('running');
    const answer = await host.handle('answerPermission', {
      conversationId,
      requestId: request.kind === 'permission' ? request.requestId : '',
      optionId: 'allow',
    });
    expect(answer.ok).toBe(true);
    await host.turns.idle();
    expect(
      transcript(conversationId)
        .items.filter((item) => item.kind === 'agent')
        .at(-1),
    ).toMatchObject({
      text: 'Permission granted (allow).',
    });

    // Written through the client's fs methods (the confined writer, over the channel), then by the agent's own shell.
    await send(conversationId, `write:${path.join(work, 'by-client.txt')}`);
    expect(readFileSync(path.join(work, 'by-client.txt'), 'utf8')).toBe('written by the fake agent');
    await send(conversationId, 'sh[echo from its shell > by-shell.txt]');
    expect(readFileSync(path.join(work, 'by-shell.txt'), 'utf8')).toBe('from its shell\n');

    // Back to the point after the first turn: both files go, the file that was there stays.
    const rewound = await host.rewinds.rewind(conversationId, first, { keepFiles: false, overwrite: [] });
    expect(rewound.failed).toEqual([]);
    expect(existsSync(path.join(work, 'by-client.txt'))).toBe(false);
    expect(existsSync(path.join(work, 'by-shell.txt'))).toBe(false);
    expect(readFileSync(path.join(work, 'kept.txt'), 'utf8')).toBe('kept\n');
  }, 120_000);

  it('outlives a dropped channel: the agent keeps running, Baton reconnects, and every chunk arrives once', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDirOn(machine, 'ssh-drop-work'));
    await send(conversationId, 'hello');
    const agentPid = host.pool.table()[0]?.pid ?? 0;
    const { channel, states, reconnectedIn, words } = await dropMidReply(host, machine, conversationId);

    // Reconnecting (a first try may fail on a busy machine), then connected; never blocked.
    expect(states[0]).toBe('reconnecting');
    expect(states.at(-1)).toBe('connected');
    expect(states).not.toContain('blocked');
    expect(machine.channelPid).not.toBe(channel);
    expect(reconnectedIn).toBeLessThan(10_000);
    // The same agent process, never restarted.
    expect(host.pool.table()[0]?.pid).toBe(agentPid);
    // Every word once, in order, none missing: what was said while the channel was down was kept and sent once.
    expect(words.length).toBeGreaterThanOrEqual(20);
    expect(words).toEqual(words.map((_word, index) => `word${index} `));
  }, 120_000);
});

if (unavailable !== undefined) {
  describe('a conversation on a machine over ssh', () => {
    it.skip(unavailable, () => undefined);
  });
}
