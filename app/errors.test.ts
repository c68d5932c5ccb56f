import { describe, expect, it } from 'vitest';
import {
  BatonError,
  errorClasses,
  errorCodes,
  fromWireError,
  toWireError,
  UnsupportedInputError,
  wireErrorSchema,
  type ErrorCode,
} from './errors.js';

describe('errors across the boundary', () => {
  it.each(errorCodes.map((code) => [code]))('%s comes back as its own class, with its message and details', (code: ErrorCode) => {
    const wire = wireErrorSchema.parse(
      JSON.parse(JSON.stringify({ code, message: `a ${code} happened`, details: { agentName: 'Claude', n: 1 } })),
    );
    const rebuilt = fromWireError(wire);
    expect(rebuilt).toBeInstanceOf(errorClasses[code]);
    expect(rebuilt).toBeInstanceOf(BatonError);
    expect(rebuilt).toBeInstanceOf(Error);
    // No other class claims it.
    for (const other of errorCodes.filter((candidate) => candidate !== code && errorClasses[candidate] !== errorClasses[code])) {
      expect(rebuilt).not.toBeInstanceOf(errorClasses[other]);
    }
    expect(rebuilt.code).toBe(code);
    expect(rebuilt.name).toBe(code);
    expect(rebuilt.message).toBe(`a ${code} happened`);
    expect(rebuilt.details).toEqual({ agentName: 'Claude', n: 1 });
    expect(toWireError(rebuilt)).toEqual(wire);
  });

  it('a thrown typed error survives the round trip unchanged', () => {
    const original = new UnsupportedInputError('Gemini', 'instructions to add to its prompt', 'it has no channel for them');
    const rebuilt = fromWireError(wireErrorSchema.parse(JSON.parse(JSON.stringify(toWireError(original)))));
    expect(rebuilt).toBeInstanceOf(UnsupportedInputError);
    expect(rebuilt.message).toBe(original.message);
    expect(rebuilt.details).toEqual(original.details);
  });

  it('anything untyped becomes Internal', () => {
    expect(fromWireError(toWireError(new TypeError('boom')))).toBeInstanceOf(errorClasses.Internal);
  });
});
