/**
 * The toolbox secrets key on real files: wrapped only by a real keychain, marked as such, and a key that cannot be unwrapped leaves Baton
 * running with its secrets closed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../../app/errors.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { Host } from '../Host.js';
import { SECRET_KEY_FILE, SecretBox, type KeyWrapper } from './SecretBox.js';

/** A stand-in keychain: XOR with a fixed pad, enough to tell wrapped bytes from the key. */
function keychain(backend?: string): KeyWrapper & { calls: number } {
  const pad = (bytes: Buffer): Buffer => Buffer.from(bytes.map((byte) => byte ^ 0x5a));
  const wrapper = {
    calls: 0,
    wrap: (key: Buffer) => {
      wrapper.calls += 1;
      return Buffer.concat([Buffer.from('wrapped:'), pad(key)]);
    },
    unwrap: (wrapped: Buffer) => pad(wrapped.subarray('wrapped:'.length)),
    ...(backend ? { backend } : {}),
  };
  return wrapper;
}

describe('the secrets key', () => {
  it('is wrapped by a real keychain and says so in the file; it opens again with the keychain', () => {
    const dir = tempDir('secretbox');
    const wrapper = keychain('gnome_libsecret');
    const sealed = SecretBox.forDataDir(dir, wrapper).seal('hush');
    expect(wrapper.calls).toBe(1);
    expect(readFileSync(path.join(dir, SECRET_KEY_FILE)).toString('latin1').startsWith('baton-secrets-key v1 wrapped\n')).toBe(true);
    expect(SecretBox.forDataDir(dir, wrapper).open(sealed)).toBe('hush');
  });

  it('is not wrapped by basic_text (a fixed password), and that is said in the log', () => {
    const dir = tempDir('secretbox-basic');
    const wrapper = keychain('basic_text');
    const log: string[] = [];
    const box = SecretBox.forDataDir(dir, wrapper, (line) => log.push(line));
    expect(wrapper.calls).toBe(0);
    expect(readFileSync(path.join(dir, SECRET_KEY_FILE)).toString('latin1').startsWith('baton-secrets-key v1 plain\n')).toBe(true);
    expect(log.join('\n')).toContain('basic_text');
    expect(SecretBox.forDataDir(dir, undefined).open(box.seal('hush'))).toBe('hush');
  });

  it('wrapped, but with no keychain now: Baton starts, and each use of a secret says why', async () => {
    const dir = tempDir('secretbox-gone');
    SecretBox.forDataDir(dir, keychain('kwallet5')).seal('hush');
    const log: string[] = [];
    const host = new Host({ dataDir: dir, env: { PATH: '' }, log: (line) => log.push(line) });
    try {
      const added = await host.handle('addServer', {
        server: { name: 'loc', transport: 'stdio', command: 'loc', env: [{ name: 'LOC_TOKEN', value: 'marker-secret', secret: true }] },
      });
      expect(added).toMatchObject({
        ok: false,
        error: { code: 'StoreError', message: expect.stringContaining('Your saved toolbox secrets cannot be opened') },
      });
      expect(log.join('\n')).toContain('not available now');
      // Nothing that was there was changed.
      expect(readFileSync(path.join(dir, SECRET_KEY_FILE)).toString('latin1').startsWith('baton-secrets-key v1 wrapped\n')).toBe(true);
    } finally {
      await host.dispose();
    }
    expect(() =>
      SecretBox.forDataDir(dir, {
        wrap: (key) => key,
        unwrap: () => {
          throw new Error('locked');
        },
      }).open('AAAA'),
    ).toThrow(StoreError);
  });

  it('reads the key files older Baton versions wrote, with no header', () => {
    const plainDir = tempDir('secretbox-old-plain');
    const key = Buffer.alloc(32, 7);
    writeFileSync(path.join(plainDir, SECRET_KEY_FILE), key);
    const sealed = SecretBox.forDataDir(plainDir).seal('old');
    const wrappedDir = tempDir('secretbox-old-wrapped');
    const wrapper = keychain();
    writeFileSync(path.join(wrappedDir, SECRET_KEY_FILE), wrapper.wrap(key));
    expect(SecretBox.forDataDir(wrappedDir, wrapper).open(sealed)).toBe('old');
  });
});
