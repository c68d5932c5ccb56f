import { describe, expect, it } from 'vitest';
import { rpcReason } from './rpcReason.js';

describe("an agent's error, as the person reads it", () => {
  it("carries the details the agent put in the error's data", () => {
    expect(rpcReason('Internal error', { details: 'No previous sessions found for this project.' })).toBe(
      'Internal error (No previous sessions found for this project.)',
    );
    expect(rpcReason('Internal error', 'disk full')).toBe('Internal error (disk full)');
    expect(rpcReason('Invalid params', { message: 'cwd must be absolute' })).toBe('Invalid params (cwd must be absolute)');
  });

  it('is the message alone when the data says nothing more', () => {
    expect(rpcReason('Internal error', undefined)).toBe('Internal error');
    expect(rpcReason('Internal error', { details: '  ' })).toBe('Internal error');
    expect(rpcReason('Internal error', { details: 'Internal error' })).toBe('Internal error');
    expect(rpcReason('Internal error', { details: 42 })).toBe('Internal error');
  });
});
