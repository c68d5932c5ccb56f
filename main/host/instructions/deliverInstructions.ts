/**
 * Turns a prepared binding's instructions into what one agent is given: the plan (shared with the
 * dialog's preview), the typed refusal, and the projection onto the agent's launch or session.
 * Reads the adapter's declared channels; never the agent's name.
 */
import { UnsupportedInputError } from '../../../app/errors.js';
import { intentInputName, planDelivery, type DeliveryPlan, type InstructionCapability, type OwnPromptSettings } from '../../../app/instructions/delivery.js';
import type { InitializeResponse } from '../acp/AgentConnection.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import type { LaunchSpec } from '../process/ProcessGroup.js';

/** The extension namespace Baton reads in `agentCapabilities._meta` and writes in `_meta`. */
export const BATON_META = 'baton.dev';

/**
 * Channels of an agent that negotiates them at `initialize` (custom agents): the proposed
 * standard `sessionCapabilities.systemPrompt`, or Baton's `_meta["baton.dev"].sessionInstructions`.
 * Either carries both intents on session/new, load and resume.
 */
export function negotiatedCapability(initialized: InitializeResponse | undefined): InstructionCapability {
  const capabilities = initialized?.agentCapabilities as
    | { sessionCapabilities?: Record<string, unknown> | null; _meta?: Record<string, unknown> | null }
    | undefined;
  const standard = capabilities?.sessionCapabilities?.systemPrompt !== undefined && capabilities.sessionCapabilities.systemPrompt !== null;
  const extension = (capabilities?._meta?.[BATON_META] as { sessionInstructions?: unknown } | undefined)?.sessionInstructions === true;
  if (!standard && !extension) {
    return {};
  }
  const via = standard ? 'systemPrompt on session/new, load and resume (proposed ACP standard)' : `_meta["${BATON_META}"].instructions on session/new, load and resume`;
  return { replace: { level: 'system', via }, append: { level: 'system', via } };
}

/** How the agent takes instructions: its declared channels, or what it advertised at initialize. */
export function capabilityOf(adapter: AgentAdapter, initialized?: InitializeResponse): InstructionCapability {
  const declared = adapter.instructions?.capability;
  if (declared === 'negotiated') {
    return negotiatedCapability(initialized);
  }
  return declared ?? {};
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
 * `_meta` carrying the instructions for a per-session channel (the adapter's own, or Baton's
 * extension for agents that negotiated it); undefined when there is nothing to send that way.
 * Throws the typed refusal for a negotiated agent that cannot take what the person wrote.
 */
export function instructionSessionMeta(adapter: AgentAdapter, binding: PreparedBinding, launch: Pick<LaunchSpec, 'args' | 'env'>, initialized: InitializeResponse): Record<string, unknown> | undefined {
  if (!binding.instructions) {
    return undefined;
  }
  if (negotiatesInstructions(adapter)) {
    const delivered = requireDeliverable(adapter, planFor(adapter, binding, launch, initialized));
    return delivered.replace === null && delivered.append === null ? undefined : { [BATON_META]: { instructions: delivered } };
  }
  const sessionMeta = adapter.instructions?.sessionMeta;
  return sessionMeta ? sessionMeta(requireDeliverable(adapter, planFor(adapter, binding, launch))) : undefined;
}
