/**
 * A data folder written by an older Baton (d2b2115, before machines: `testData/written-by-d2b2115`)
 * opens in this one as it was: its conversation is listed with the folder it had, on this computer
 * (an event that names no machine means this one), its turns and checkpoints read back, its stored
 * events are not rewritten, and a conversation made now names its machine.
 */
import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Result } from '../../../app/ipc/index.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { Host, definedEnv } from '../Host.js';

const written = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testData', 'written-by-d2b2115');
const CONVERSATION = '88081b7a-bafc-44a2-8b95-f89593ca35e1';
const FIRST_TURN = '5807a892-2ae4-4166-9927-309d178f5a4b';

describe('a data folder written before machines', () => {
  let host: Host | undefined;
  afterEach(async () => {
    await host?.dispose();
  });

  it('opens as it was: listed on this computer, its turns and checkpoints read back, its events not rewritten', async () => {
    const dataDir = tempDir('old-data');
    for (const file of ['baton.sqlite', 'checkpoints.sqlite']) {
      cpSync(path.join(written, file), path.join(dataDir, file));
    }
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });

    const listed = host.store.listSummaries({ lifecycle: 'active' }).conversations;
    expect(
      listed.map(({ conversationId, title, cwd, machine, turnCount }) => ({ conversationId, title, cwd, machine, turnCount })),
    ).toEqual([{ conversationId: CONVERSATION, title: 'Written by an older Baton', cwd: '/tmp/oldwork', machine: 'local', turnCount: 2 }]);
    const { events } = host.store.readEvents(CONVERSATION);
    const created = events.find((event) => event.type === 'conversation.created');
    // Stored as it was written: no machine in it, and read as this computer.
    expect(created?.type === 'conversation.created' && created.payload).toEqual({
      title: 'Written by an older Baton',
      agentId: 'custom:fake',
      agentName: 'Fake',
      cwd: '/tmp/oldwork',
    });
    const state = reduceAll(emptyTranscript(CONVERSATION), events);
    expect(state).toMatchObject({ machine: 'local', cwd: '/tmp/oldwork' });
    expect(state.items.filter((item) => item.kind === 'agent')).toHaveLength(2);

    const answer = await host.handle('listTurnChanges', { conversationId: CONVERSATION, turnId: FIRST_TURN });
    if (!answer.ok) {
      throw new Error(answer.error.message);
    }
    const { changes } = answer.result as Result<'listTurnChanges'>;
    expect(changes.map(({ path: file, change, before }) => [file, change, before])).toEqual([['notes.md', 'modified', 'first version\n']]);

    // A conversation made now names the machine its folder is on.
    const work = tempDir('old-data-work');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const made = host.store.readEvents(conversationId).events.find((event) => event.type === 'conversation.created');
    expect(made?.type === 'conversation.created' && made.payload.machine).toBe('local');
  });
});
