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

/**
 * Wraps the key with something stronger than a file's permissions (the desktop keychain).
 * `backend` names the keychain where the system says (Electron's Linux backends); `basic_text`
 * means a fixed password built into Chromium, which protects nothing.
 */
export type KeyWrapper = { wrap(key: Buffer): Buffer; unwrap(wrapped: Buffer): Buffer; backend?: string };

/** The key file inside the data folder. */
export const SECRET_KEY_FILE = 'secrets.key';

/** The key file's first line says how the key after it is kept; files from before it have none. */
const WRAPPED_HEADER = Buffer.from('baton-secrets-key v1 wrapped\n');
const PLAIN_HEADER = Buffer.from('baton-secrets-key v1 plain\n');

/** Seals and opens secret values; when the key cannot be had, it says why on each use instead of keeping Baton from starting. */
export class SecretBox {
  private constructor(
    private readonly key: Buffer | null,
    /** Why the saved secrets cannot be opened (null when they can). */
    readonly problem: string | null,
  ) {}

  /**
   * Reads the data folder's key, making it on first use. The key is wrapped by the keychain only
   * where a real one is there (not `basic_text`, which is said in the log). A key wrapped by a
   * keychain that is no longer available leaves the secrets closed: Baton still starts, and
   * every use of a secret says why.
   */
  static forDataDir(dataDir: string, wrapper?: KeyWrapper, log: (line: string) => void = () => {}): SecretBox {
    const file = path.join(dataDir, SECRET_KEY_FILE);
    const usable = wrapper && wrapper.backend !== 'basic_text' ? wrapper : undefined;
    if (wrapper && !usable) {
      log(
        'The system keychain is not available to Baton (Chromium would fall back to a built-in password, basic_text), so the toolbox secrets key is protected only by its file permissions (0600).',
      );
    }
    let stored: Buffer | undefined;
    try {
      stored = existsSync(file) ? readFileSync(file) : undefined;
    } catch (error) {
      return SecretBox.closed(file, `it could not be read (${(error as Error).message})`, log);
    }
    if (!stored) {
      const key = randomBytes(32);
      try {
        writeFileSync(file, usable ? Buffer.concat([WRAPPED_HEADER, usable.wrap(key)]) : Buffer.concat([PLAIN_HEADER, key]), {
          mode: 0o600,
          flag: 'wx',
        });
        chmodSync(file, 0o600);
      } catch (error) {
        throw new StoreError(`Baton could not save the key for your secrets (${file}): ${(error as Error).message}.`, { file });
      }
      return new SecretBox(key, null);
    }
    const wrapped = stored.subarray(0, WRAPPED_HEADER.length).equals(WRAPPED_HEADER);
    const plain = stored.subarray(0, PLAIN_HEADER.length).equals(PLAIN_HEADER);
    // Before the header: a bare 32-byte key was kept plain; anything else was wrapped.
    const isWrapped = wrapped || (!plain && stored.length !== 32);
    const body = wrapped ? stored.subarray(WRAPPED_HEADER.length) : plain ? stored.subarray(PLAIN_HEADER.length) : stored;
    if (!isWrapped) {
      return body.length === 32 ? new SecretBox(body, null) : SecretBox.closed(file, 'it is not a key Baton wrote', log);
    }
    if (!wrapper) {
      return SecretBox.closed(
        file,
        "it is wrapped by the system keychain, which is not available now (in the browser version, or the desktop's keychain is locked or gone)",
        log,
      );
    }
    try {
      const key = wrapper.unwrap(body);
      return key.length === 32
        ? new SecretBox(key, null)
        : SecretBox.closed(file, 'the keychain gave back something that is not a key Baton wrote', log);
    } catch (error) {
      return SecretBox.closed(file, `the system keychain could not unwrap it (${(error as Error).message})`, log);
    }
  }

  private static closed(file: string, reason: string, log: (line: string) => void): SecretBox {
    const problem = `Your saved toolbox secrets cannot be opened: the key ${file} ${reason}. They stay encrypted and nothing was changed; servers that need them cannot start until the key can be read again.`;
    log(problem);
    return new SecretBox(null, problem);
  }

  private requireKey(): Buffer {
    if (!this.key) {
      throw new StoreError(this.problem ?? 'The toolbox secrets cannot be opened.');
    }
    return this.key;
  }

  /** Encrypts `value`: base64 of nonce, tag and ciphertext. */
  seal(value: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.requireKey(), nonce);
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64');
  }

  /** Decrypts what {@link seal} made; throws if it was changed or sealed with another key. */
  open(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.requireKey(), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
