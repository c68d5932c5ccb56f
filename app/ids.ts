/** Identifier helpers. Uses the Web Crypto global, present in Node, browsers and Electron. */

/** A new random identifier (UUID v4). */
export function newId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * The machine id of the person's own computer. A folder is a place on a machine: an event or a
 * summary that names no machine (everything written before machines existed) means this one.
 */
export const LOCAL_MACHINE_ID = 'local';
