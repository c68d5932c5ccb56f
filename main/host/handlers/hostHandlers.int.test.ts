/** The host's own requests that outlive a run: the conversation open last, given to the first window after a restart. */
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { Host, definedEnv } from '../Host.js';

describe('the conversation open at a restart', () => {
  const hosts: Host[] = [];
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.dispose()));
  });
  const start = (dataDir: string): Host => {
    const host = new Host({ dataDir, env: definedEnv(process.env) });
    hosts.push(host);
    return host;
  };

  it('goes to the first window that asks after a start, and to no later one', async () => {
    const dataDir = tempDir('host-restart');
    const first = start(dataDir);
    // Nothing was open before this data folder's first run.
    expect(await first.handle('takeConversationAtStart', {})).toEqual({ ok: true, result: { conversationId: null } });
    expect(await first.handle('setPreference', { key: 'baton.lastConversation', value: 'conversation-a' })).toMatchObject({ ok: true });
    // The same run: a second window starts a new conversation, whatever was open in the first.
    expect(await first.handle('takeConversationAtStart', {})).toEqual({ ok: true, result: { conversationId: null } });
    await first.dispose();
    hosts.length = 0;

    const second = start(dataDir);
    expect(await second.handle('takeConversationAtStart', {})).toEqual({ ok: true, result: { conversationId: 'conversation-a' } });
    expect(await second.handle('takeConversationAtStart', {})).toEqual({ ok: true, result: { conversationId: null } });
  });
});
