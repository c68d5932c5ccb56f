/** The agent the last new conversation was started with, kept with the host's preferences: the next new conversation starts with it. */
import { readPreference, writePreference } from './preferences.js';

const KEY = 'baton.lastAgent';

/** The agent remembered, if any. */
export function lastAgent(): string | null {
  const value = readPreference(KEY);
  return value && value.trim() !== '' ? value : null;
}

/** Remembers the agent a conversation was started with. */
export function rememberAgent(agentId: string): void {
  if (agentId !== '' && agentId !== lastAgent()) {
    writePreference(KEY, agentId);
  }
}
