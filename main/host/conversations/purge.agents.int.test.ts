/**
 * Erasing a conversation for good also deletes the agent session Baton created for it, where the
 * agent offers `session/delete` (codex-acp 2.6 does): the agent's own list no longer has it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHome, agentUnavailable, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../../../e2e/fixtures/modelStub.js';
import { Host } from '../Host.js';

const skip = agentUnavailable('codex');

describe('erasing a Codex conversation for good', () => {
  let stub: ModelStub;
  let host: Host;
  beforeAll(async () => {
    stub = await startModelStub();
    host = new Host({ dataDir: tempDir('purge'), env: agentHome('codex', stub.url) });
  });
  afterAll(async () => {
    await host?.dispose();
    await stub?.close();
  });

  it.skipIf(skip)(
    withSkipReason('deletes the Codex session Baton created for it', skip),
    async () => {
      const work = tempDir('purge-work');
      const { conversationId } = host.conversations.create('codex', work);
      await host.turns.send(conversationId, 'Remember this, then be erased');
      await host.turns.idle();
      const sessionId = host.store.getContext(conversationId).sessions.codex?.sessionId;
      expect(sessionId).toBeDefined();
      const listed = async (): Promise<string[]> => (await host.imports.list('codex', work)).sessions.map((session) => session.sessionId);
      expect(await listed()).toContain(sessionId);
      await host.history.delete(conversationId);
      await host.history.purge(conversationId);
      expect(await listed()).not.toContain(sessionId);
    },
    120_000,
  );
});
