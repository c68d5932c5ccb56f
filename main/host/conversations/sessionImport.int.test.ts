/**
 * Importing sessions started outside Baton, with real agents: a session made through one data
 * folder is listed by the agent (`session/list`) in another, imported with its messages,
 * imported only once, and continued by the next message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHome, agentUnavailable, withSkipReason, type ConformanceAgent } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../../../e2e/fixtures/modelStub.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host } from '../Host.js';

/** Agents that offer session/list and load, measured with the pinned versions. */
const IMPORTABLE: ConformanceAgent[] = ['claude', 'codex', 'qwen', 'opencode', 'pi'];

function transcript(host: Host, conversationId: string): TranscriptState {
  return reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
}

describe.each(IMPORTABLE)('importing a %s session started outside Baton', (agent) => {
  let stub: ModelStub;
  let env: Record<string, string>;
  const skip = agentUnavailable(agent);

  beforeAll(async () => {
    stub = await startModelStub({
      reply: ({ lastUserText }) => ({
        chunks: [lastUserText.includes('tangerine') ? 'Noted: ' : 'Still here: ', 'tangerine.'],
        delayMs: 5,
      }),
    });
    env = agentHome(agent, stub.url);
  });

  afterAll(async () => {
    await stub.close();
  });

  it.skipIf(skip)(
    withSkipReason('lists it, imports its messages once, and continues it', skip),
    async () => {
      const work = tempDir(`import-${agent}`);
      // Somewhere else (another data folder: as far as this one knows, outside Baton).
      const outside = new Host({ dataDir: tempDir('outside'), env });
      let sessionId: string;
      try {
        const { conversationId } = outside.conversations.create(agent, work);
        await outside.turns.send(conversationId, 'Remember the word tangerine');
        await outside.turns.idle();
        const state = transcript(outside, conversationId);
        expect(Object.values(state.turns)[0]?.status).toBe('completed');
        sessionId = state.session!.sessionId;
      } finally {
        await outside.dispose();
      }

      const host = new Host({ dataDir: tempDir('importing'), env });
      try {
        const listed = await host.handle('listAgentSessions', { agentId: agent, cwd: work });
        expect(listed.ok, JSON.stringify(listed)).toBe(true);
        const sessions = listed.ok
          ? (listed.result as { sessions: Array<{ sessionId: string; conversationId: string | null }> }).sessions
          : [];
        expect(sessions.find((session) => session.sessionId === sessionId)).toMatchObject({ conversationId: null });

        const imported = await host.handle('importAgentSession', { agentId: agent, sessionId, cwd: work });
        expect(imported).toMatchObject({ ok: true, result: { alreadyImported: false } });
        const conversationId = imported.ok
          ? (imported.result as { conversation: { conversationId: string } }).conversation.conversationId
          : '';
        let state = transcript(host, conversationId);
        expect(state.items.filter((item) => item.kind === 'user')).toMatchObject([{ text: 'Remember the word tangerine' }]);
        expect(state.items.find((item) => item.kind === 'agent')).toMatchObject({ text: expect.stringContaining('Noted: tangerine.') });
        expect(state.session).toMatchObject({ agentId: agent, sessionId });
        expect(host.store.getSummary(conversationId).title).not.toBe('');

        // Imported once: listing shows where it went, importing again returns the same conversation.
        const again = await host.handle('importAgentSession', { agentId: agent, sessionId, cwd: work });
        expect(again).toMatchObject({ ok: true, result: { alreadyImported: true, conversation: { conversationId } } });
        const relisted = await host.handle('listAgentSessions', { agentId: agent, cwd: work });
        expect(
          relisted.ok &&
            (relisted.result as { sessions: Array<{ sessionId: string; conversationId: string | null }> }).sessions.find(
              (session) => session.sessionId === sessionId,
            ),
        ).toMatchObject({ conversationId });

        // The next message continues the agent's own session.
        const { turnId } = await host.turns.send(conversationId, 'Are you still there?');
        await host.turns.idle();
        state = transcript(host, conversationId);
        expect(state.turns[turnId]?.status).toBe('completed');
        expect(state.session).toMatchObject({ sessionId, how: expect.stringMatching(/^(resume|load)$/) });
      } finally {
        await host.dispose();
      }
    },
    180_000,
  );
});

describe('an agent without session/list', () => {
  const skip = agentUnavailable('gemini');
  it.skipIf(skip)(
    withSkipReason('is refused plainly when asked for its sessions', skip),
    async () => {
      const stub = await startModelStub();
      const env = agentHome('gemini', stub.url);
      const host = new Host({ dataDir: tempDir('no-list'), env });
      try {
        expect(await host.handle('listAgentSessions', { agentId: 'gemini' })).toMatchObject({
          ok: false,
          error: { code: 'UnsupportedInput', message: expect.stringContaining('Gemini') },
        });
      } finally {
        await host.dispose();
        await stub.close();
      }
    },
    60_000,
  );
});

describe('a session whose folder is gone', () => {
  it('is refused before any agent starts, naming the folder', async () => {
    const host = new Host({ dataDir: tempDir('import-gone'), env: { PATH: process.env.PATH ?? '' } });
    try {
      const gone = `${tempDir('import-gone-work')}/moved-away`;
      expect(await host.handle('importAgentSession', { agentId: 'claude', sessionId: 's-1', cwd: gone })).toMatchObject({
        ok: false,
        error: {
          code: 'InvalidRequest',
          message: `The session's folder ${gone} no longer exists, so the session cannot be continued; restore the folder to import it.`,
        },
      });
      expect(host.pool.table()).toEqual([]);
    } finally {
      await host.dispose();
    }
  });
});
