/**
 * One list of session options from what agents report: ACP config options (select and boolean)
 * plus, for agents that offer modes but no mode option (Gemini), a synthesized "Mode" option
 * that is set through `session/set_mode`.
 */
import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk/unstable';
import type { EventPayload } from '../../../app/events/index.js';

/** One option as Baton records it. */
export type SessionOption = EventPayload<'session.options'>['options'][number];

/** Id of the synthesized mode option. */
export const MODE_OPTION_ID = 'baton:mode';

/** What the agent says of a value, when it says something (kept short). */
function said(description: string | null | undefined): { description?: string } {
  const text = description?.trim();
  return text ? { description: text.length > 500 ? `${text.slice(0, 499)}…` : text } : {};
}

function fromConfig(option: SessionConfigOption): SessionOption {
  if (option.type === 'boolean') {
    const base = {
      id: option.id,
      name: option.name,
      type: 'boolean' as const,
      currentValue: String(option.currentValue),
      options: [
        { value: 'true', name: 'On' },
        { value: 'false', name: 'Off' },
      ],
    };
    return option.category ? { ...base, category: option.category } : base;
  }
  const flat = option.options.flatMap((entry) => ('group' in entry ? entry.options : [entry]));
  const base = {
    id: option.id,
    name: option.name,
    type: 'select' as const,
    currentValue: option.currentValue,
    options: flat.map(({ value, name, description }) => ({ value, name, ...said(description) })),
  };
  return option.category ? { ...base, category: option.category } : base;
}

/** The options of a session from its modes and config options. */
export function sessionOptions(
  modes: SessionModeState | null | undefined,
  configOptions: SessionConfigOption[] | null | undefined,
): SessionOption[] {
  const options = (configOptions ?? []).map(fromConfig);
  if (modes && modes.availableModes.length > 1 && !options.some((option) => option.category === 'mode')) {
    options.unshift({
      id: MODE_OPTION_ID,
      name: 'Mode',
      category: 'mode',
      type: 'select',
      currentValue: modes.currentModeId,
      options: modes.availableModes.map(({ id, name, description }) => ({ value: id, name, ...said(description) })),
    });
  }
  return options;
}

/** The list after the agent reported a new current mode. */
export function withCurrentMode(options: SessionOption[], modeId: string): SessionOption[] {
  return options.map((option) => (option.category === 'mode' ? { ...option, currentValue: modeId } : option));
}
