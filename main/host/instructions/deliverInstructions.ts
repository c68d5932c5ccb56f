/**
 * An agent's instruction channels: the standard `systemPrompt` it advertises first, then its
 * adapter's own; the person's own prompt settings in its launch; how the delivered texts split
 * between the channels; and the channels in words for its card. `resolveBinding` plans with
 * them (the only planner); never the agent's name.
 */
import type { DeliveredInstructions, InstructionCapability, OwnPromptSettings } from '../../../app/instructions/delivery.js';
import type { InitializeResponse } from '../acp/AgentConnection.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import type { LaunchSpec } from '../machine/ProcessGroup.js';

/** The extension namespace Baton reads in `agentCapabilities._meta` and writes in `_meta`. */
export const BATON_META = 'baton.dev';

/** What an agent advertises of the protocol's standard `systemPrompt`: append, and override (replace) too. */
export function standardSystemPrompt(initialized: InitializeResponse | undefined): { append: boolean; override: boolean } | undefined {
  const capabilities = initialized?.agentCapabilities as { sessionCapabilities?: Record<string, unknown> | null } | undefined;
  const advertised = capabilities?.sessionCapabilities?.systemPrompt as { mode?: { override?: unknown } | null } | null | undefined;
  if (advertised === undefined || advertised === null) {
    return undefined;
  }
  return { append: true, override: advertised.mode?.override !== undefined && advertised.mode.override !== null };
}

/**
 * Channels of an agent that negotiates them at `initialize` (custom agents): Baton's own
 * extension `_meta["baton.dev"].sessionInstructions`, for both intents. The standard is added by
 * {@link capabilityOf}.
 */
export function negotiatedCapability(initialized: InitializeResponse | undefined): InstructionCapability {
  const capabilities = initialized?.agentCapabilities;
  const extension = (capabilities?._meta?.[BATON_META] as { sessionInstructions?: unknown } | undefined)?.sessionInstructions === true;
  if (!extension) {
    return {};
  }
  const via = `_meta["${BATON_META}"].instructions on session/new, load and resume`;
  return { replace: { level: 'system', via }, append: { level: 'system', via } };
}

/**
 * How the agent takes instructions. The standard `systemPrompt` is the first choice for every
 * intent it covers (append; replace only with `mode.override`), as the agent advertised it, or
 * (before it has answered) as its adapter expects it to; the agent's own channels remain for
 * the intents the standard does not cover.
 */
export function capabilityOf(adapter: AgentAdapter, initialized?: InitializeResponse): InstructionCapability {
  const declared = adapter.instructions?.capability;
  const own = declared === 'negotiated' ? negotiatedCapability(initialized) : (declared ?? {});
  const standard = initialized ? standardSystemPrompt(initialized) : adapter.instructions?.standard?.expected;
  if (!standard) {
    return own;
  }
  const level = adapter.instructions?.standard?.level ?? 'system';
  const lands = adapter.instructions?.standard?.lands;
  const via = `the ACP standard systemPrompt on session/new, load and resume${lands ? ` (${lands})` : ''}`;
  const channel = { level, via, standard: true } as const;
  return {
    ...(standard.override ? { replace: channel } : own.replace ? { replace: own.replace } : {}),
    append: channel,
  };
}

/** True when the channels are known only after `initialize`. */
export function negotiatesInstructions(adapter: AgentAdapter): boolean {
  return adapter.instructions?.capability === 'negotiated';
}

/** The person's own system-prompt settings in an agent's launch, in any spelling, per intent. */
export function ownPromptSettings(adapter: AgentAdapter, launch: Pick<LaunchSpec, 'args' | 'env'>): OwnPromptSettings {
  const found: { append?: string; replace?: string } = {};
  for (const arg of launch.args) {
    const flag = /^(--(?:append-)?system-prompt(?:-file)?)(?:=.*)?$/.exec(arg)?.[1];
    if (flag) {
      found[flag.startsWith('--append') ? 'append' : 'replace'] ??= `${flag} in its arguments`;
    }
  }
  for (const [intent, names] of Object.entries(adapter.instructions?.ownPromptEnv ?? {}) as Array<
    ['append' | 'replace', readonly string[]]
  >) {
    const name = names.find((candidate) => launch.env[candidate] !== undefined && launch.env[candidate] !== '');
    if (name) {
      found[intent] ??= `${name} setting in its environment`;
    }
  }
  return found;
}

/** The agent's channels in words, for its card. */
export function describeChannels(agentName: string, capability: InstructionCapability): string {
  const line = (intent: 'replace' | 'append', label: string): string => {
    const channel = capability[intent];
    if (!channel) {
      return `${label}: not possible for ${agentName}`;
    }
    const level = channel.level === 'system' ? 'system level' : 'developer level';
    return `${label}: ${level}, through ${channel.via}${channel.visibleInProcessList ? ' (the text is visible in the process list; Baton asks you once before using it)' : ''}`;
  };
  const note =
    capability.append?.level === 'system'
      ? "Baton's short note (that the conversation may pass between agents) is added to its prompt"
      : "Baton's short note is added only after a replacement you ask for (it has no other channel for it)";
  return `${line('replace', 'Replace its prompt')}. ${line('append', 'Add to its prompt')}. ${note}.`;
}

/**
 * The delivered texts split by where they go: the standard `systemPrompt`, Baton's extension on
 * `_meta`, and the agent's own channels (its launch, or its own `_meta`).
 */
export function splitDelivered(
  capability: InstructionCapability,
  delivered: DeliveredInstructions,
  negotiated: boolean,
): { standard: DeliveredInstructions; extension: DeliveredInstructions; own: DeliveredInstructions } {
  const none: DeliveredInstructions = { replace: null, append: null };
  const pick = (test: (intent: 'replace' | 'append') => boolean): DeliveredInstructions => ({
    replace: delivered.replace !== null && test('replace') ? delivered.replace : null,
    append: delivered.append !== null && test('append') ? delivered.append : null,
  });
  const standard = pick((intent) => capability[intent]?.standard === true);
  const rest = pick((intent) => capability[intent]?.standard !== true);
  return negotiated ? { standard, extension: rest, own: none } : { standard, extension: none, own: rest };
}
