/** Rows read back from the database: events through their schemas (unknown ones kept as such), summaries through theirs. */
import { describe, expect, it } from 'vitest';
import { eventFromRow, summaryFromRow } from './projections.js';

const row = (type: string, payload: unknown, v = 1) => ({
  conversation_id: 'c1',
  seq: 4,
  at: '2026-12-03T10:00:00Z',
  v,
  type,
  payload: JSON.stringify(payload),
});

describe('rows read back', () => {
  it('an event of a known type comes back typed, with its envelope', () => {
    const event = eventFromRow(row('conversation.renamed', { title: 'Plans' }));
    expect(event).toEqual({
      conversationId: 'c1',
      seq: 4,
      at: '2026-12-03T10:00:00Z',
      v: 1,
      type: 'conversation.renamed',
      payload: { title: 'Plans' },
    });
    expect('unknown' in event).toBe(false);
  });

  it('a type this version does not know, or a payload that does not fit, comes back as unknown, not as an error', () => {
    expect(eventFromRow(row('hologram.projected', { x: 1 }))).toMatchObject({ type: 'hologram.projected', unknown: true });
    expect(eventFromRow(row('conversation.renamed', { title: 42 }))).toMatchObject({ type: 'conversation.renamed', unknown: true });
  });

  it('a summary is read through its schema: defaults filled, a malformed one refused', () => {
    const stored = {
      conversationId: 'c1',
      title: 'Plans',
      agentId: 'claude',
      agentName: 'Claude',
      agents: [{ agentId: 'claude', agentName: 'Claude' }],
      cwd: '/w',
      createdAt: 'then',
      updatedAt: 'now',
      turnCount: 2,
      lastSeq: 9,
      preview: 'hello',
      running: false,
      lifecycle: 'active',
      deletedAt: null,
    };
    // Written before these fields were kept: they come back with their defaults.
    expect(summaryFromRow(JSON.stringify(stored))).toMatchObject({ pendingPermissions: 0, lastTurnFailed: false });
    expect(() => summaryFromRow(JSON.stringify({ ...stored, turnCount: -1 }))).toThrow();
    expect(() => summaryFromRow('{not json')).toThrow();
  });
});
