/** A conversation's summary as the host sends it, for the store's unit tests. */
import type { ConversationSummary } from '../../app/transcript/summary.js';

/** An active conversation with Claude in /w, one turn in; `overrides` changes any field. */
export function testSummary(conversationId: string, overrides: Partial<ConversationSummary> = {}): ConversationSummary {
  return {
    conversationId,
    title: conversationId,
    agentId: 'claude',
    agentName: 'Claude',
    agents: [{ agentId: 'claude', agentName: 'Claude' }],
    cwd: '/w',
    machine: 'local',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    turnCount: 1,
    lastSeq: 1,
    preview: '',
    running: false,
    pendingPermissions: 0,
    lastTurnFailed: false,
    lifecycle: 'active',
    deletedAt: null,
    ...overrides,
  };
}
