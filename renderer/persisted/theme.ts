/**
 * Light and dark themes: the system setting by default, or the person's choice, kept with the
 * host's preferences. The theme in force is a `data-theme` attribute on the root element (the
 * tokens in styles.css follow it); under "system" it follows the setting as it changes.
 */
import { readPreference, writePreference } from './preferences.js';

export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'baton.theme';

/** The remembered choice ("system" when none). */
export function readTheme(): ThemeChoice {
  const value = readPreference(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

const systemDark = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined;
let current: ThemeChoice = 'system';
const show = (): void => {
  document.documentElement.dataset.theme = current === 'system' ? (systemDark?.matches ? 'dark' : 'light') : current;
};
systemDark?.addEventListener('change', show);

/** Shows the remembered choice at start-up (nothing is written). */
export function startTheme(): void {
  current = readTheme();
  show();
}

/** Applies a choice to the page, and remembers it. */
export function applyTheme(choice: ThemeChoice): void {
  current = choice;
  show();
  writePreference(KEY, choice === 'system' ? null : choice);
}
