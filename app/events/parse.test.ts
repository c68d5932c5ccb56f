import { describe, expect, it } from 'vitest';
import { envelopeSchema, isUnknownEvent, parseDraft, parseEnvelope } from './index.js';

describe('event parsing', () => {
  it('accepts a valid draft and rejects unknown types and bad payloads', () => {
    expect(parseDraft({ type: 'message.chunk', payload: { turnId: 't', text: 'x' } })).toEqual({
      type: 'message.chunk',
      payload: { turnId: 't', text: 'x' },
    });
    expect(() => parseDraft({ type: 'nope', payload: {} })).toThrow('Unknown event type');
    expect(() => parseDraft({ type: 'message.chunk', payload: { turnId: 't' } })).toThrow();
    expect(() => parseDraft({ type: 'turn.ended', payload: { turnId: 't', outcome: 'exploded' } })).toThrow();
  });

  it('reads a known envelope, keeps an unknown or newer one as unknown, and reports a broken one', () => {
    const base = { conversationId: 'c', seq: 1, at: 'now', v: 1 };
    const known = parseEnvelope({ ...base, type: 'notice', payload: { severity: 'info', text: 'hi' } });
    expect(known.ok && !isUnknownEvent(known.event) && known.event.type).toBe('notice');
    const future = parseEnvelope({ ...base, type: 'hologram', payload: { x: 1 } });
    expect(future.ok && isUnknownEvent(future.event)).toBe(true);
    const newer = parseEnvelope({ ...base, v: 2, type: 'notice', payload: { anything: true } });
    expect(newer.ok && isUnknownEvent(newer.event)).toBe(true);
    const broken = parseEnvelope({ ...base, type: 'notice', payload: { severity: 'loud' } });
    expect(broken).toMatchObject({ ok: false, reason: expect.stringContaining('notice') });
    expect(parseEnvelope({ seq: 'one' })).toMatchObject({ ok: false });
  });

  it('takes exactly the envelopes the envelope schema takes, and says what is wrong with the rest', () => {
    const base = { conversationId: 'c', seq: 1, at: 'now', v: 1, type: 'hologram', payload: { x: 1 } };
    const variants: unknown[] = [
      base,
      { ...base, extra: true },
      { ...base, payload: undefined },
      { ...base, seq: Number.MAX_SAFE_INTEGER },
      null,
      'text',
      [base],
      { ...base, conversationId: '' },
      { ...base, conversationId: 7 },
      { ...base, seq: 0 },
      { ...base, seq: -1 },
      { ...base, seq: 1.5 },
      { ...base, seq: '1' },
      { ...base, seq: Number.NaN },
      { ...base, seq: Number.MAX_SAFE_INTEGER + 1 },
      { ...base, at: 1 },
      { ...base, v: 0 },
      { ...base, v: 2.5 },
      { ...base, type: '' },
      { ...base, type: undefined },
      { conversationId: 'c', seq: 1, at: 'now', type: 'hologram' },
    ];
    for (const raw of variants) {
      const parsed = parseEnvelope(raw);
      expect(parsed.ok, JSON.stringify(raw) ?? String(raw)).toBe(envelopeSchema.safeParse(raw).success);
      if (!parsed.ok) {
        expect(parsed.reason).toMatch(/\w+: /);
      }
    }
  });
});
