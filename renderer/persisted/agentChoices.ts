/**
 * Per agent, the session options (model, mode…) it offered last and the values the person chose,
 * kept with the host's preferences, so that a new conversation can show the pickers before its
 * first message and apply the choices when the session starts.
 */
import type { EventPayload } from '../../app/events/index.js';
import { readPreference, writePreference } from './preferences.js';

type SessionOption = EventPayload<'session.options'>['options'][number];

const KEY = 'baton.agentChoices';

/** What is remembered for one agent. */
export type AgentChoices = { options: SessionOption[]; chosen: Record<string, string> };

function readAll(): Record<string, AgentChoices> {
  try {
    const value: unknown = JSON.parse(readPreference(KEY) ?? '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, AgentChoices>) : {};
  } catch {
    return {};
  }
}

function writeAll(all: Record<string, AgentChoices>): void {
  writePreference(KEY, JSON.stringify(all));
}

/** The remembered options and choices of an agent (only well-formed entries). */
export function agentChoices(agentId: string): AgentChoices | undefined {
  const entry = readAll()[agentId];
  if (!entry || !Array.isArray(entry.options) || typeof entry.chosen !== 'object' || entry.chosen === null) {
    return undefined;
  }
  const options = entry.options.filter((option) => typeof option?.id === 'string' && Array.isArray(option.options));
  return options.length > 0
    ? {
        options,
        chosen: Object.fromEntries(Object.entries(entry.chosen).filter((pair): pair is [string, string] => typeof pair[1] === 'string')),
      }
    : undefined;
}

/** Remembers the options an agent offered (keeping the choices made earlier; `choicesToApply` drops those no longer offered). */
export function rememberOptions(agentId: string, options: readonly SessionOption[]): void {
  if (options.length === 0) {
    return;
  }
  const all = readAll();
  const chosen = all[agentId]?.chosen ?? {};
  const previous = JSON.stringify(all[agentId]?.options ?? []);
  if (previous === JSON.stringify(options)) {
    return;
  }
  all[agentId] = { options: [...options], chosen };
  writeAll(all);
}

/** Remembers a choice the person made for an agent. */
export function rememberChoice(agentId: string, optionId: string, value: string): void {
  const all = readAll();
  const entry = all[agentId] ?? { options: [], chosen: {} };
  all[agentId] = { ...entry, chosen: { ...entry.chosen, [optionId]: value } };
  writeAll(all);
}

/**
 * The choices to apply to a new conversation with this agent: each remembered (or overridden)
 * choice of an option it still offers, with a value it still offers. (A new session's defaults are
 * not known beforehand, so a choice equal to one is applied too; setting it again changes nothing.)
 */
export function choicesToApply(
  choices: AgentChoices | undefined,
  override: Record<string, string> = {},
): Array<{ optionId: string; value: string }> {
  if (!choices) {
    return [];
  }
  const wanted = { ...choices.chosen, ...override };
  return choices.options.flatMap((option) => {
    const value = wanted[option.id];
    return value !== undefined && option.options.some((choice) => choice.value === value) ? [{ optionId: option.id, value }] : [];
  });
}
