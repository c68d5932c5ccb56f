/**
 * Light and dark themes: the system setting by default, or the person's choice, remembered in
 * this browser profile. The choice is a `data-theme` attribute on the root element; the tokens in
 * styles.css follow it.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'baton.theme';

/** The remembered choice ("system" when none). */
export function readTheme(): ThemeChoice {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

/** Applies a choice to the page, and remembers it. */
export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') {
    delete document.documentElement.dataset.theme;
  } else {
    document.documentElement.dataset.theme = choice;
  }
  try {
    if (choice === 'system') {
      localStorage.removeItem(KEY);
    } else {
      localStorage.setItem(KEY, choice);
    }
  } catch {
    // Storage refused (private window): the choice holds for this page only.
  }
}
