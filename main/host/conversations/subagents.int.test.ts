/**
 * ACP subagents through a real ACP child process (the fake agent): Baton asks for them at
 * `initialize`, routes the subagent's own session to the turn that runs it, and keeps its work
 * inside that turn, in the store and in both exports.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';

describe('subagents', () => {
  let host: Host;

  beforeEach(() => {
    const dataDir = tempDir('subagents');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, env: definedEnv(process.env) });
  });

  afterEach(async () => {
    await host.dispose();
  });

  it("a subagent's work is kept in a card of its own inside the turn that ran it", async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const { turnId } = await host.turns.send(conversationId, 'use a subagent please');
    await host.turns.idle();
    const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    expect(state.turns[turnId]?.status).toBe('completed');
    const card = state.items.find((item) => item.kind === 'subagent');
    expect(card).toMatchObject({ turnId, title: 'Researcher', description: 'Reads the notes', state: 'idle' });
    expect(card?.kind === 'subagent' && card.items.map((item) => item.kind)).toEqual(['agent', 'tool']);
    expect(card?.kind === 'subagent' && card.items[0]).toMatchObject({ kind: 'agent', text: 'Reading the notes for the parent.' });
    expect(card?.kind === 'subagent' && card.items[1]).toMatchObject({ kind: 'tool', title: 'Read notes.md', status: 'completed' });
    // The parent's own reply stays the parent's.
    expect(state.items.filter((item) => item.kind === 'agent').map((item) => item.kind === 'agent' && item.text)).toEqual([
      'The researcher is done.',
    ]);

    const markdown = await host.handle('exportConversation', { conversationId, format: 'markdown' });
    expect(markdown.ok && (markdown.result as { content: string }).content).toContain('Subagent: Researcher');
    expect(markdown.ok && (markdown.result as { content: string }).content).toContain('Read notes.md');
    const jsonl = await host.handle('exportConversation', { conversationId, format: 'jsonl' });
    const imported = await host.handle('importConversation', { content: jsonl.ok ? (jsonl.result as { content: string }).content : '' });
    const copy = imported.ok ? (imported.result as { conversation: { conversationId: string } }).conversation.conversationId : '';
    const again = reduceAll(emptyTranscript(copy), host.store.readEvents(copy).events);
    expect(again.items.find((item) => item.kind === 'subagent')).toMatchObject({ title: 'Researcher', state: 'idle' });
  });
});
