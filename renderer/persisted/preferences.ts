/**
 * The page's preferences (the theme, recent folders, remembered agent choices, the conversation
 * open last), kept by the host
 * in its data folder, so every window and every run share them: the browser version's storage is
 * per address, and its port is new on each run. This window's localStorage holds a copy, read at
 * once at start-up (the theme shows before the host answers); the host's copy wins once it does.
 */
import { preferenceKeySchema } from '../../app/ipc/index.js';

/** Writes one preference to the host (null: forget it). */
type Send = (key: string, value: string | null) => void;

let send: Send | undefined;

/** A preference as this window has it (null when there is none). */
export function readPreference(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Changes a preference here and at the host. */
export function writePreference(key: string, value: string | null): void {
  try {
    if (value === null) {
      localStorage.removeItem(key);
    } else {
      localStorage.setItem(key, value);
    }
  } catch {
    // Storage refused (a private window): the host still keeps it.
  }
  send?.(key, value);
}

/**
 * Takes the host's preferences as this window's, and sends later changes to it. A preference
 * only this window has (kept before the host kept them) is given to the host.
 */
export function adoptPreferences(fromHost: Readonly<Record<string, string>>, sendToHost: Send): void {
  send = sendToHost;
  for (const key of preferenceKeySchema.options) {
    const hosted = fromHost[key];
    if (hosted !== undefined) {
      try {
        localStorage.setItem(key, hosted);
      } catch {
        // Storage refused (a private window): this window goes without its copy; the host keeps the preference.
      }
    } else {
      const local = readPreference(key);
      if (local !== null) {
        sendToHost(key, local);
      }
    }
  }
}
