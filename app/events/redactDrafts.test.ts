/** The one redaction step: what it takes out, in which forms, and what it leaves as the person wrote it. */
import { describe, expect, it } from 'vitest';
import { REDACTED } from '../instructions/injectors.js';
import type { EventDraft } from './index.js';
import { redactDrafts } from './redactDrafts.js';

const SECRET = 'tok"en/with spaces&=1';

describe('redactDrafts', () => {
  it('takes a secret out of terminal output, tool output and error tails, as written, JSON-escaped and URL-encoded', () => {
    const drafts = [
      { type: 'terminal.output', payload: { terminalId: 't', text: `LOC_TOKEN=${SECRET}\n` } },
      {
        type: 'tool.updated',
        payload: {
          toolCallId: 'c',
          rawOutput: { body: JSON.stringify({ token: SECRET }) },
          content: [{ type: 'text', text: `GET /x?token=${encodeURIComponent(SECRET)}` }],
        },
      },
      {
        type: 'turn.ended',
        payload: {
          turnId: 'u',
          stopReason: 'error',
          error: { code: 'Agent', message: 'failed', details: { stderrTail: `using ${SECRET}` } },
        },
      },
    ] as unknown as EventDraft[];
    const text = JSON.stringify(redactDrafts(drafts, [SECRET]));
    expect(text).not.toContain('tok\\"en');
    expect(text).not.toContain(encodeURIComponent(SECRET));
    expect(text).not.toContain('with spaces');
    expect(text.split(REDACTED).length - 1).toBe(4);
  });

  it('keeps what the person typed as they typed it', () => {
    const drafts = [
      { type: 'turn.started', payload: { turnId: 'u', agentId: 'a', agentName: 'A', text: `my ${SECRET}` } },
    ] as unknown as EventDraft[];
    expect(redactDrafts(drafts, [SECRET])).toEqual(drafts);
  });
});
