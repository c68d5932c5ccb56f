/** Identifier helpers. Uses the Web Crypto global, present in Node, browsers and Electron. */

/** A new random identifier (UUID v4). */
export function newId(): string {
  return globalThis.crypto.randomUUID();
}
