import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exposedWarning, parseArgs, USAGE } from './cliArgs.js';

describe('web host arguments', () => {
  it('defaults to a free port, ~/.baton and opening a browser', () => {
    expect(parseArgs([], {})).toEqual({ port: undefined, dataDir: path.join(os.homedir(), '.baton'), open: true });
  });
  it('takes --port, --data-dir (also as --x=y) and --no-open; BATON_DATA_DIR is the fallback', () => {
    expect(parseArgs(['--port', '8080', '--data-dir=/tmp/d', '--no-open'], {})).toEqual({ port: 8080, dataDir: '/tmp/d', open: false });
    expect(parseArgs([], { BATON_DATA_DIR: '/srv/baton' }).dataDir).toBe('/srv/baton');
  });
  it('takes --host to serve beyond this machine', () => {
    expect(parseArgs(['--host', '0.0.0.0'], {}).host).toBe('0.0.0.0');
    expect(parseArgs([], {}).host).toBeUndefined();
  });
  it('--help (or -h) asks for the options, which name every one', () => {
    expect(parseArgs(['--help'], {})).toMatchObject({ help: true });
    expect(parseArgs(['--port', '8080', '-h'], {})).toMatchObject({ help: true });
    for (const option of ['--port N', '--data-dir DIR', '--no-open', '--host ADDRESS', '--help']) {
      expect(USAGE).toContain(option);
    }
  });

  it('explains bad arguments', () => {
    expect(() => parseArgs(['--port', 'eighty'], {})).toThrow('--port must be a whole number');
    expect(() => parseArgs(['--port'], {})).toThrow('--port needs a value');
    expect(() => parseArgs(['--verbose'], {})).toThrow('Unknown option "--verbose"');
  });
  it('warns of clear text beyond this machine, and names the SSH tunnel', () => {
    expect(exposedWarning('127.0.0.1', 8080)).toBeUndefined();
    const warning = exposedWarning('0.0.0.0', 8080) ?? '';
    expect(warning).toContain('plain HTTP');
    expect(warning).toContain('in the clear');
    expect(warning).toContain('ssh -L 8080:127.0.0.1:8080');
  });
});
