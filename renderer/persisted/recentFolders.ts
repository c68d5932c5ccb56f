/** The working folders used last, newest first, kept with the host's preferences (offered as completions). */
import { readPreference, writePreference } from './preferences.js';

const KEY = 'baton.recentFolders';
const KEEP = 10;

/** The remembered folders. */
export function recentFolders(): string[] {
  try {
    const value: unknown = JSON.parse(readPreference(KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string').slice(0, KEEP) : [];
  } catch {
    return [];
  }
}

/** Remembers a folder a conversation was started in. */
export function rememberFolder(folder: string): void {
  writePreference(KEY, JSON.stringify([folder, ...recentFolders().filter((entry) => entry !== folder)].slice(0, KEEP)));
}
