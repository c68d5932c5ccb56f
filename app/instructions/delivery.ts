/**
 * Where each part of a bundle lands for one agent, decided from the agent's declared channels
 * (one capability table, per adapter) and the person's settings for that agent. Pure, so the
 * host's launch and the dialog's preview read the same answer. Shared code never asks which
 * agent it is: only which channels it has.
 */
import { z } from 'zod';
import type { InstructionBundle, InstructionIntent } from './bundle.js';
import { BATON_FRAGMENT } from './batonFragment.js';

/** How one intent reaches an agent (measured against the recording model stub). */
export const instructionChannelSchema = z.object({
  /** "system": the model request's system channel; "developer": a developer-role message. */
  level: z.enum(['system', 'developer']),
  /** What carries it, in words, for the agent's card. */
  via: z.string(),
  /** True when the text travels as a command-line argument, which every user of the machine can read. */
  visibleInProcessList: z.boolean().optional(),
  /** True for the protocol's standard `systemPrompt` on the session (what the agent advertised at `initialize`). */
  standard: z.boolean().optional(),
});
/** One of {@link instructionChannelSchema}. */
export type InstructionChannel = Readonly<z.infer<typeof instructionChannelSchema>>;

/** The channels an agent has, per intent; an intent without one is refused. */
export const instructionCapabilitySchema = z.object({
  replace: instructionChannelSchema.optional(),
  append: instructionChannelSchema.optional(),
});
/** One of {@link instructionCapabilitySchema}. */
export type InstructionCapability = Readonly<Partial<Record<InstructionIntent, InstructionChannel>>>;

/** The person's choices for one agent. */
export const agentInstructionSettingsSchema = z.object({
  /** Baton's delivery turned off for this agent: it runs with only its own prompt. */
  off: z.boolean(),
  /** The person accepted once that this agent's instructions travel on its command line. */
  commandLineAccepted: z.boolean(),
  /**
   * For an agent without embedded context: the person let per-turn injector context travel as a
   * delimited text block labelled as injected context (otherwise such a turn is refused).
   */
  contextAsText: z.boolean().default(false),
});
/** One of {@link agentInstructionSettingsSchema}. */
export type AgentInstructionSettings = Readonly<z.infer<typeof agentInstructionSettingsSchema>>;

/** Where one intent lands: a level, or why not. */
export const partLevelSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('system-added') }),
  z.object({ kind: z.literal('system-replaced') }),
  z.object({ kind: z.literal('developer') }),
  /**
   * One turn's context on its prompt: an embedded resource, or labelled text where the person allowed it (unverified: the agent could not
   * be asked yet).
   */
  z.object({ kind: z.literal('per-turn'), as: z.enum(['resource', 'text']), unverified: z.boolean().optional() }),
  z.object({ kind: z.literal('refused'), reason: z.string() }),
  z.object({ kind: z.literal('off'), reason: z.string() }),
]);
/** One of {@link partLevelSchema}. */
export type PartLevel = z.infer<typeof partLevelSchema>;

/** The texts an agent's channels carry, Baton's fragment included where it goes. */
export type DeliveredInstructions = Readonly<{ replace: string | null; append: string | null }>;

/** The answer for one agent and one bundle. */
export type DeliveryPlan = Readonly<{
  /** Per intent the bundle carries. */
  levels: Readonly<Partial<Record<InstructionIntent, PartLevel>>>;
  /** What Baton's own fragment does here. */
  fragment: 'delivered' | 'skipped' | 'off';
  /** Why the fragment is skipped, when it is. */
  fragmentNote?: string;
  /** What to deliver; null when a refusal stops the turn. */
  delivered: DeliveredInstructions | null;
  /** The first refusal, for the typed error: the intent and why. */
  refusal: { intent: InstructionIntent; reason: string } | null;
}>;

/** The words the dialog shows for a level. */
export function levelLabel(level: PartLevel): string {
  switch (level.kind) {
    case 'system-added':
      return 'system, added';
    case 'system-replaced':
      return 'system, replaced';
    case 'developer':
      return 'developer';
    case 'per-turn':
      return `per-turn context, ${level.as === 'resource' ? 'as an embedded resource' : 'as labelled text'}${level.unverified ? ' (if the agent takes embedded context; checked when it starts)' : ''}`;
    case 'refused':
      return `refused: ${level.reason}`;
    case 'off':
      return `not delivered: ${level.reason}`;
  }
}

/** The person's own system-prompt settings for an agent, per intent (e.g. "--system-prompt in its arguments"). */
export type OwnPromptSettings = Readonly<Partial<Record<InstructionIntent, string>>>;

const INPUT_NAMES: Record<InstructionIntent, string> = {
  append: 'instructions to add to its prompt',
  replace: 'a replacement for its prompt',
};

/** How the typed error names the input that was refused. */
export function intentInputName(intent: InstructionIntent): string {
  return INPUT_NAMES[intent];
}

/** Decides where the bundle's parts land for one agent. */
export function planDelivery(options: {
  agentName: string;
  capability: InstructionCapability;
  bundle: Pick<InstructionBundle, 'replace' | 'append'>;
  settings: Pick<AgentInstructionSettings, 'off' | 'commandLineAccepted'>;
  ownPrompt?: OwnPromptSettings;
  /** Baton's own fragment is on (BATON_NO_SYSTEM_PROMPT_APPEND is not set). */
  fragment: boolean;
}): DeliveryPlan {
  const { agentName, capability, bundle, settings, ownPrompt = {} } = options;
  const wanted: InstructionIntent[] = (['replace', 'append'] as const).filter((intent) => bundle[intent] !== null);
  if (settings.off) {
    const levels = Object.fromEntries(
      wanted.map((intent) => [
        intent,
        { kind: 'off', reason: `delivery is turned off for ${agentName}, which runs with only its own prompt` },
      ]),
    );
    return { levels, fragment: 'off', delivered: { replace: null, append: null }, refusal: null };
  }
  const levels: Partial<Record<InstructionIntent, PartLevel>> = {};
  let refusal: DeliveryPlan['refusal'] = null;
  for (const intent of wanted) {
    const reason = refusalReason(agentName, intent, capability, settings, ownPrompt);
    const channel = capability[intent];
    const level: PartLevel =
      reason || !channel
        ? { kind: 'refused', reason: reason ?? '' }
        : channel.level === 'developer'
          ? { kind: 'developer' }
          : { kind: intent === 'replace' ? 'system-replaced' : 'system-added' };
    levels[intent] = level;
    if (level.kind === 'refused' && !refusal) {
      refusal = { intent, reason: level.reason };
    }
  }
  // Baton's fragment: after the person's addition where the agent can add, else after a replacement
  // Baton delivers; never on anyone else's prompt, and never a reason to refuse.
  let fragment: DeliveryPlan['fragment'] = 'off';
  let fragmentNote: string | undefined;
  let append = bundle.append;
  let replace = bundle.replace;
  if (options.fragment) {
    const appendChannel = capability.append;
    const canAppend =
      appendChannel?.level === 'system' &&
      !ownPrompt.append &&
      (!appendChannel.visibleInProcessList || settings.commandLineAccepted || bundle.append === null);
    if (canAppend) {
      append = append === null ? BATON_FRAGMENT : `${append}\n\n${BATON_FRAGMENT}`;
      fragment = 'delivered';
    } else if (replace !== null && capability.replace && !ownPrompt.replace) {
      replace = `${replace}\n\n${BATON_FRAGMENT}`;
      fragment = 'delivered';
    } else {
      fragment = 'skipped';
      fragmentNote = `${agentName} has no channel Baton can add its note to`;
    }
  }
  return { levels, fragment, ...(fragmentNote ? { fragmentNote } : {}), delivered: refusal ? null : { replace, append }, refusal };
}

function refusalReason(
  agentName: string,
  intent: InstructionIntent,
  capability: InstructionCapability,
  settings: Pick<AgentInstructionSettings, 'commandLineAccepted'>,
  ownPrompt: OwnPromptSettings,
): string | undefined {
  const own = ownPrompt[intent];
  if (own) {
    return `your own ${own} is in force for ${agentName}, and Baton does not add a second one; remove it, or clear this part`;
  }
  const channel = capability[intent];
  if (!channel) {
    const other: InstructionIntent = intent === 'append' ? 'replace' : 'append';
    const instead = capability[other] ? (other === 'replace' ? '; replace it instead' : '; add to it instead') : '';
    return intent === 'append'
      ? `${agentName} cannot add to its own prompt${instead}`
      : `${agentName} cannot have its prompt replaced${instead}`;
  }
  if (channel.visibleInProcessList && !settings.commandLineAccepted) {
    // What it means for the person, not how Baton does it (the channel's details are on the agent's card).
    return `${agentName} takes this only on its command line, where other users of this computer can read it in the process list; allow that for ${agentName} first`;
  }
  return undefined;
}
