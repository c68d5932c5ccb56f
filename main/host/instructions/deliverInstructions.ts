/**
 * Turns a prepared binding's instructions into what one agent is given: the plan (shared with the
 * dialog's preview), the typed refusal, and the projection onto the agent's launch or session.
 * Reads the adapter's declared channels; never the agent's name.
 */
import { UnsupportedInputError } from '../../../app/errors.js';
import { intentInputName, planDelivery, type DeliveredInstructions, type DeliveryPlan, type InstructionCapability, type OwnPromptSettings } from '../../../app/instructions/delivery.js';
import type { InitializeResponse } from '../acp/AgentConnection.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import type { LaunchSpec } from '../process/ProcessGroup.js';

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
  for (const [intent, names] of Object.entries(adapter.instructions?.ownPromptEnv ?? {}) as Array<['append' | 'replace', readonly string[]]>) {
    const name = names.find((candidate) => launch.env[candidate] !== undefined && launch.env[candidate] !== '');
    if (name) {
      found[intent] ??= `${name} setting in its environment`;
    }
  }
  return found;
}

/** Plans delivery of the binding's instructions to this agent. */
export function planFor(adapter: AgentAdapter, binding: PreparedBinding, launch: Pick<LaunchSpec, 'args' | 'env'>, initialized?: InitializeResponse): DeliveryPlan {
  const { instructions } = binding;
  return planDelivery({
    agentName: adapter.displayName,
    capability: capabilityOf(adapter, initialized),
    bundle: instructions ?? { replace: null, append: null },
    settings: instructions?.settings ?? { off: false, commandLineAccepted: false, contextAsText: false },
    ownPrompt: ownPromptSettings(adapter, launch),
    fragment: instructions?.fragment ?? false,
  });
}

/** Throws the typed refusal when the plan refuses a part the person wrote. */
export function requireDeliverable(adapter: AgentAdapter, plan: DeliveryPlan): NonNullable<DeliveryPlan['delivered']> {
  if (plan.refusal || !plan.delivered) {
    const { intent, reason } = plan.refusal ?? { intent: 'append' as const, reason: 'no channel' };
    throw new UnsupportedInputError(adapter.displayName, intentInputName(intent), reason);
  }
  return plan.delivered;
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
  const note = capability.append?.level === 'system' ? "Baton's short note (that the conversation may pass between agents) is added to its prompt" : "Baton's short note is added only after a replacement you ask for (it has no other channel for it)";
  return `${line('replace', 'Replace its prompt')}. ${line('append', 'Add to its prompt')}. ${note}.`;
}

/**
 * The delivered texts split by where they go: the standard `systemPrompt`, Baton's extension on
 * `_meta`, and the agent's own channels (its launch, or its own `_meta`).
 */
export function splitDelivered(capability: InstructionCapability, delivered: DeliveredInstructions, negotiated: boolean): { standard: DeliveredInstructions; extension: DeliveredInstructions; own: DeliveredInstructions } {
  const none: DeliveredInstructions = { replace: null, append: null };
  const pick = (test: (intent: 'replace' | 'append') => boolean): DeliveredInstructions => ({
    replace: delivered.replace !== null && test('replace') ? delivered.replace : null,
    append: delivered.append !== null && test('append') ? delivered.append : null,
  });
  const standard = pick((intent) => capability[intent]?.standard === true);
  const rest = pick((intent) => capability[intent]?.standard !== true);
  return negotiated ? { standard, extension: rest, own: none } : { standard, extension: none, own: rest };
}
