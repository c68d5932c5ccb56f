/**
 * The host as a child process, SIGKILLed while two attempts stream: after a restart every chunk
 * it had pushed is stored in each attempt's conversation, each attempt's turn is interrupted, and
 * every copy on disk is accounted for (listed with its open attempts; a stray folder with no list
 * is removed). Setting the attempts aside then removes their copies.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { parseEnvelope, type Envelope } from '../../app/events/index.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../app/transcript/index.js';
import { tempDir } from '../../e2e/fixtures/agentEnv.js';
import { ensureBuilt } from '../../e2e/fixtures/ensureBuilt.js';
import { fakeAgentId, registerFakeAgents } from '../../e2e/fixtures/fakeAgentConfig.js';
import type { HostClient } from '../../e2e/fixtures/hostClient.js';
import { hostProcesses } from '../../e2e/fixtures/hostProcesses.js';

const hosts = hostProcesses();
const start = (dataDir: string) => hosts.start(dataDir);

beforeAll(() => ensureBuilt(), 120_000);
afterEach(() => hosts.stopAll());

async function read(client: HostClient, conversationId: string): Promise<TranscriptState> {
  const { events } = await client.call<{ events: Envelope[] }>('openConversation', { conversationId, turns: 1000, maxEvents: 10_000 });
  return reduceAll(
    emptyTranscript(conversationId),
    events.flatMap((envelope) => {
      const parsed = parseEnvelope(envelope);
      return parsed.ok ? [parsed.event] : [];
    }),
  );
}

it('a host SIGKILLed mid-attempt keeps what streamed, marks the attempts interrupted, and leaves no copy unaccounted for', async () => {
  const dataDir = tempDir('attempts-crash');
  registerFakeAgents(dataDir, [{ name: 'Fake A' }, { name: 'Fake B' }]);
  const work = tempDir('attempts-crash-work');
  writeFileSync(path.join(work, 'shared.txt'), 'original\n');
  const first = await start(dataDir);
  const { conversation } = await first.client.call<{ conversation: { conversationId: string } }>('newConversation', {
    agentId: fakeAgentId('Fake A'),
    cwd: work,
  });
  const conversationId = conversation.conversationId;
  await first.client.call('askAgents', {
    conversationId,
    text: 'slow',
    agents: [{ agentId: fakeAgentId('Fake A') }, { agentId: fakeAgentId('Fake B') }],
  });
  const parent = await read(first.client, conversationId);
  const item = parent.items.find((entry) => entry.kind === 'attempts');
  const attempts = item?.kind === 'attempts' ? item.attempts : [];
  expect(attempts).toHaveLength(2);
  // Both stream (a word every 50 ms) before the host is killed.
  const streamed = (id: string): string =>
    first.client.pushed
      .filter((envelope) => envelope.conversationId === id && envelope.type === 'message.chunk')
      .map((envelope) => (envelope.payload as { text: string }).text)
      .join('');
  await expect
    .poll(() => attempts.map((attempt) => streamed(attempt.conversationId).split(' ').length >= 5), { timeout: 20_000 })
    .toEqual([true, true]);
  await first.host.kill('SIGKILL');
  const before = new Map(attempts.map((attempt) => [attempt.conversationId, streamed(attempt.conversationId)]));
  // A folder of attempts that never got its list (a host killed before writing it).
  mkdirSync(path.join(dataDir, 'attempts', 'stray', 'custom-fake-a'), { recursive: true });

  const second = await start(dataDir);
  for (const attempt of attempts) {
    const state = await read(second.client, attempt.conversationId);
    const reply = state.items.findLast((entry) => entry.kind === 'agent');
    expect(reply?.kind === 'agent' ? reply.text.startsWith(before.get(attempt.conversationId)!) : false).toBe(true);
    expect(Object.values(state.turns).at(-1)?.status).toBe('interrupted');
    // Its copy is still there, listed with its attempts (which are open: they can be kept or set aside).
    expect(existsSync(attempt.folder)).toBe(true);
  }
  const listed = JSON.parse(
    readFileSync(path.join(dataDir, 'attempts', item!.kind === 'attempts' ? item!.attemptsId : '', 'owner.json'), 'utf8'),
  ) as { copies: Array<{ root: string }> };
  expect(listed.copies.map((copy) => copy.root).sort()).toEqual(attempts.map((attempt) => attempt.folder).sort());
  await expect.poll(() => readdirSync(path.join(dataDir, 'attempts'))).toEqual([item!.kind === 'attempts' ? item!.attemptsId : '']);
  // The person's folder was never touched.
  expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('original\n');

  await second.client.call('setAttemptsAside', { conversationId, attemptsId: item!.kind === 'attempts' ? item!.attemptsId : '' });
  for (const attempt of attempts) {
    expect(existsSync(attempt.folder)).toBe(false);
  }
  expect(readdirSync(path.join(dataDir, 'attempts'))).toEqual([]);
}, 90_000);
