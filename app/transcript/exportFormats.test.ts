import { describe, expect, it } from 'vitest';
import type { Envelope } from '../events/index.js';
import { exportFileName, parseJsonl, toJsonl, toMarkdown } from './exportFormats.js';
import type { ConversationSummary } from './summary.js';

const envelopes: Envelope[] = [
  {
    conversationId: 'c',
    seq: 1,
    at: '2026-01-01T00:00:00.000Z',
    v: 1,
    type: 'conversation.created',
    payload: { title: '', agentId: 'claude', agentName: 'Claude', cwd: '/w' },
  },
  {
    conversationId: 'c',
    seq: 2,
    at: '2026-01-01T00:00:01.000Z',
    v: 1,
    type: 'turn.started',
    payload: { turnId: 't', agentId: 'claude', agentName: 'Claude', text: 'Fix *the* bug' },
  },
  {
    conversationId: 'c',
    seq: 3,
    at: '2026-01-01T00:00:02.000Z',
    v: 1,
    type: 'tool.call',
    payload: { turnId: 't', toolCallId: 'x', title: 'Edit a.ts', status: 'completed' },
  },
  { conversationId: 'c', seq: 4, at: '2026-01-01T00:00:03.000Z', v: 1, type: 'message.chunk', payload: { turnId: 't', text: 'Done.' } },
  { conversationId: 'c', seq: 5, at: '2026-01-01T00:00:04.000Z', v: 2, type: 'hologram.projected', payload: { from: 'the future' } },
  {
    conversationId: 'c',
    seq: 6,
    at: '2026-01-01T00:00:05.000Z',
    v: 1,
    type: 'turn.ended',
    payload: { turnId: 't', outcome: 'failed', error: { code: 'AgentExited', message: 'Claude exited.' } },
  },
];
const summary = {
  conversationId: 'c',
  title: 'Fix: the bug / now!',
  agents: [{ agentId: 'claude', agentName: 'Claude' }],
  cwd: '/w',
  createdAt: '2026-01-01T00:00:00.000Z',
} as ConversationSummary;

describe('JSONL', () => {
  it('round-trips every envelope, unknown ones included', () => {
    expect(parseJsonl(toJsonl(envelopes))).toEqual(envelopes);
    expect(parseJsonl(toJsonl(envelopes).replace(/\n/g, '\r\n'))).toEqual(envelopes);
  });
  it('names the line that is wrong', () => {
    const lines = toJsonl(envelopes).split('\n');
    lines[2] = '{"conversationId":"c","seq":3}';
    expect(() => parseJsonl(lines.join('\n'))).toThrow(/Line 3/);
    lines[2] = '{"conversationId":"c","seq":3,"at":"x","v":1,"type":"notice","payload":{"severity":"shout"}}';
    expect(() => parseJsonl(lines.join('\n'))).toThrow(/Line 3 of the transcript has a broken event/);
    expect(() => parseJsonl('\n\n')).toThrow('no events');
  });
});

describe('Markdown', () => {
  it('writes who said what, tool calls and failures, in order', () => {
    const markdown = toMarkdown(summary, envelopes);
    expect(markdown.startsWith('# Fix: the bug / now!\n\n_Claude · /w · started 2026-01-01T00:00:00.000Z_')).toBe(true);
    const order = ['## You\n\nFix *the* bug', '- Tool: **Edit a.ts** (completed)', '## Claude\n\nDone.', '> Error: Claude exited.'].map(
      (part) => markdown.indexOf(part),
    );
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
  it('lists what the person attached to a message, never an image itself', () => {
    const attached: Envelope[] = [
      envelopes[0]!,
      {
        conversationId: 'c',
        seq: 2,
        at: '2026-01-01T00:00:01.000Z',
        v: 1,
        type: 'turn.started',
        payload: {
          turnId: 't',
          agentId: 'claude',
          agentName: 'Claude',
          text: 'Look at these',
          attachments: [
            { type: 'file', name: 'docs/notes.md', uri: 'file:///w/docs/notes.md' },
            { type: 'image', name: 'shot.png', mimeType: 'image/png', size: 12_345, sha256: 'a'.repeat(64) },
          ],
        },
      },
    ];
    expect(toMarkdown(summary, attached)).toContain(
      '## You\n\nLook at these\n\nAttached:\n- File **docs/notes.md** (file:///w/docs/notes.md)\n- Image **shot.png** (image/png, 12,345 bytes)\n',
    );
  });
  it('makes safe file names from titles', () => {
    expect(exportFileName(summary, 'md')).toBe('Fix-the-bug-now.md');
    expect(exportFileName({ ...summary, title: '???' }, 'jsonl')).toBe('conversation.jsonl');
  });
});
