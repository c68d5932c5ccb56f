/** The working folders used last, newest first, remembered in this browser profile (offered as completions). */
const KEY = 'baton.recentFolders';
const KEEP = 10;

/** The remembered folders. */
export function recentFolders(): string[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string').slice(0, KEEP) : [];
  } catch {
    return [];
  }
}

/** Remembers a folder a conversation was started in. */
export function rememberFolder(folder: string): void {
  try {
    localStorage.setItem(KEY, JSON.stringify([folder, ...recentFolders().filter((entry) => entry !== folder)].slice(0, KEEP)));
  } catch {
    // Storage refused: nothing is remembered.
  }
}
