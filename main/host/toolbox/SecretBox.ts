/**
 * Encryption at rest for the toolbox's secret values (AES-256-GCM). The key lives in the data
 * folder in a file only this user can read (0600); the desktop app wraps it with the operating
 * system's keychain (Electron safeStorage) through a {@link KeyWrapper}. Values are sealed before
 * they reach the database and opened only to start the server they belong to.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StoreError } from '../../../app/errors.js';

/** Wraps the key with something stronger than a file's permissions (the desktop keychain). */
export type KeyWrapper = { wrap(key: Buffer): Buffer; unwrap(wrapped: Buffer): Buffer };

/** The key file inside the data folder. */
export const SECRET_KEY_FILE = 'secrets.key';

/** Seals and opens secret values. */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** Reads the data folder's key, making it on first use. */
  static forDataDir(dataDir: string, wrapper?: KeyWrapper): SecretBox {
    const file = path.join(dataDir, SECRET_KEY_FILE);
    try {
      if (existsSync(file)) {
        const stored = readFileSync(file);
        const key = wrapper ? wrapper.unwrap(stored) : stored;
        if (key.length !== 32) {
          throw new Error('the key file is not a key Baton wrote');
        }
        return new SecretBox(key);
      }
      const key = randomBytes(32);
      writeFileSync(file, wrapper ? wrapper.wrap(key) : key, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
      return new SecretBox(key);
    } catch (error) {
      throw new StoreError(`Baton could not open the key for your saved secrets (${file}): ${(error as Error).message}. Your secrets stay encrypted; nothing was changed.`, { file });
    }
  }

  /** Encrypts `value`: base64 of nonce, tag and ciphertext. */
  seal(value: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64');
  }

  /** Decrypts what {@link seal} made; throws if it was changed or sealed with another key. */
  open(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
