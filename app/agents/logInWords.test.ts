import { describe, expect, it } from 'vitest';
import { logInLabel, logInSummary } from './logInWords.js';

describe('log-in words', () => {
  it('never says "Log in with" twice', () => {
    expect(logInLabel('Log in with Claude')).toBe('Log in with Claude');
    expect(logInLabel('Login with ChatGPT')).toBe('Login with ChatGPT');
    expect(logInLabel('Use CODEX_API_KEY')).toBe('Use CODEX_API_KEY');
    expect(logInLabel('Google')).toBe('Log in with Google');
  });

  it('lists the methods without wrapping them in a sentence', () => {
    expect(logInSummary(['Login with ChatGPT', 'Use CODEX_API_KEY'])).toBe('Log-in: Login with ChatGPT; or Use CODEX_API_KEY');
  });
});
