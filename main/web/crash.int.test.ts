/**
 * The host as a child process, killed with SIGKILL while a long reply streams: after a restart,
 * every event it had pushed is in the store, the turn shows as interrupted, and the conversation
 * goes on. A second host on the same data folder is refused while the first runs.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../e2e/fixtures/agentEnv.js';
import { ensureBuilt } from '../../e2e/fixtures/ensureBuilt.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../e2e/fixtures/fakeAgentConfig.js';
import { connectHostClient } from '../../e2e/fixtures/hostClient.js';
import { hostProcesses, processEnv } from '../../e2e/fixtures/hostProcesses.js';
import { startWebHost } from '../../e2e/fixtures/webHost.js';
import { parseEnvelope, type Envelope } from '../../app/events/index.js';
import { emptyTranscript, reduceAll } from '../../app/transcript/index.js';

const hosts = hostProcesses();
const env = processEnv;
const running = hosts.running;
const clients = hosts.clients;
const start = (dataDir: string) => hosts.start(dataDir);

beforeAll(() => ensureBuilt(), 120_000);
afterEach(() => hosts.stopAll());

function reduceEnvelopes(conversationId: string, envelopes: Envelope[]) {
  return reduceAll(
    emptyTranscript(conversationId),
    envelopes.flatMap((envelope) => {
      const parsed = parseEnvelope(envelope);
      return parsed.ok ? [parsed.event] : [];
    }),
  );
}

/** True while `pid` runs (a zombie, ended and waiting to be reaped, does not count). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

describe.skipIf(process.platform !== 'linux')('agents die with the host [reads Linux /proc]', () => {
  it.each([
    ['the host alone is SIGKILLed', false],
    ["the host's whole process group is SIGKILLed", true],
  ])(
    '%s: the agent and everything in its group end within a few seconds',
    async (_, wholeGroup) => {
      const dataDir = tempDir('lifeline');
      registerFakeAgent(dataDir);
      const host = await startWebHost(dataDir, env, 15_000, { ownGroup: wholeGroup });
      running.push(host);
      const client = await connectHostClient(host.url);
      clients.push(client);
      const { conversation } = await client.call<{ conversation: { conversationId: string } }>('newConversation', {
        agentId: FAKE_AGENT_ID,
        cwd: tempDir('work'),
      });
      await client.call('sendMessage', { conversationId: conversation.conversationId, text: 'outlive' });
      let reply = '';
      await expect
        .poll(
          () => {
            reply = client.pushed
              .filter((event) => event.type === 'message.chunk')
              .map((event) => (event.payload as { text: string }).text)
              .join('');
            return reply;
          },
          { timeout: 20_000 },
        )
        .toMatch(/^Helper \d+ under agent \d+$/);
      const [helper, agent] = [...reply.matchAll(/\d+/g)].map((match) => Number(match[0]));
      expect(alive(helper!) && alive(agent!)).toBe(true);
      if (wholeGroup) {
        process.kill(-host.child.pid!, 'SIGKILL');
      }
      await host.kill('SIGKILL');
      await expect.poll(() => [alive(agent!), alive(helper!)], { timeout: 5_000 }).toEqual([false, false]);
    },
    60_000,
  );
});

describe('a host killed mid-stream', () => {
  it('loses nothing it pushed, shows the turn interrupted, and carries on after a restart', async () => {
    const dataDir = tempDir('crash');
    registerFakeAgent(dataDir);
    const first = await start(dataDir);
    const { conversation } = await first.client.call<{ conversation: { conversationId: string } }>('newConversation', {
      agentId: FAKE_AGENT_ID,
      cwd: tempDir('work'),
    });
    const { conversationId } = conversation;
    const { turnId } = await first.client.call<{ turnId: string }>('sendMessage', { conversationId, text: 'a long answer please' });
    await expect
      .poll(() => first.client.pushed.filter((event) => event.type === 'message.chunk').length, { timeout: 20_000 })
      .toBeGreaterThan(40);
    await first.host.kill('SIGKILL');
    const pushed = [...first.client.pushed];

    const second = await start(dataDir);
    const { events } = await second.client.call<{ events: Envelope[] }>('openConversation', { conversationId });
    const stored = new Map(events.map((event) => [event.seq, event]));
    for (const event of pushed) {
      expect(stored.get(event.seq)).toEqual(event);
    }
    const state = reduceEnvelopes(conversationId, events);
    expect(state.turns[turnId]?.status).toBe('interrupted');
    expect(state.items.some((item) => item.kind === 'notice' && item.text.startsWith('Interrupted'))).toBe(true);

    const next = await second.client.call<{ turnId: string }>('sendMessage', { conversationId, text: 'are you still there?' });
    await expect
      .poll(
        () =>
          second.client.pushed.some((event) => event.type === 'turn.ended' && (event.payload as { turnId: string }).turnId === next.turnId),
        { timeout: 20_000 },
      )
      .toBe(true);
    const after = await second.client.call<{ events: Envelope[] }>('openConversation', { conversationId });
    expect(reduceEnvelopes(conversationId, after.events).items.at(-1)).toMatchObject({
      kind: 'agent',
      text: 'Fake reply: are you still there?',
    });
  }, 60_000);

  it('a second host on the same data folder refuses to start and names the first', async () => {
    const dataDir = tempDir('twice');
    const first = await start(dataDir);
    const refused = await startWebHost(dataDir, env).then(
      (host) => {
        running.push(host);
        return 'started';
      },
      (error: Error) => error.message,
    );
    expect(refused).toContain(`Another Baton (process ${first.host.child.pid})`);
  }, 30_000);
});
