/**
 * The person's permission mode wins: which of a session's modes ask the person and which let the
 * agent approve on its own (from the adapter's `modes`), marked on the options Baton records, and
 * what to do when a session starts in, or switches itself into, a mode the person did not pick.
 */
import type { SessionOption } from './sessionOptions.js';

/**
 * An agent's permission modes by what they do: the one that asks the person first, and those in which the agent approves on its own (see
 * `AgentAdapter.modes`).
 */
export type PermissionModes = Readonly<{ asking: string; selfApproving: readonly string[] }>;

/** The session's mode option (the agent's own, or Baton's synthesized one). */
export function modeOption(options: readonly SessionOption[]): SessionOption | undefined {
  return options.find((option) => option.category === 'mode');
}

/** The options with every self-approving mode marked. */
export function markSelfApproving(options: SessionOption[], modes: PermissionModes | undefined): SessionOption[] {
  if (!modes) {
    return options;
  }
  return options.map((option) =>
    option.category === 'mode'
      ? {
          ...option,
          options: option.options.map((value) => (modes.selfApproving.includes(value.value) ? { ...value, selfApproving: true } : value)),
        }
      : option,
  );
}

/**
 * The mode to set, when the session's current mode lets the agent approve on its own and the
 * person did not pick it: the asking mode, if the session offers it. Undefined: leave it.
 */
export function modeToRestore(
  options: readonly SessionOption[],
  modes: PermissionModes | undefined,
  picked: string | undefined,
): { option: SessionOption; from: string; to: string } | undefined {
  const option = modeOption(options);
  if (!modes || !option || !modes.selfApproving.includes(option.currentValue) || option.currentValue === picked) {
    return undefined;
  }
  const to = picked !== undefined && option.options.some((value) => value.value === picked) ? picked : modes.asking;
  return option.options.some((value) => value.value === to) ? { option, from: option.currentValue, to } : undefined;
}

/** A mode's name as the agent calls it. */
export function modeName(option: SessionOption, value: string): string {
  return option.options.find((candidate) => candidate.value === value)?.name ?? value;
}
