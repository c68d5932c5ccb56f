/**
 * What the Instructions dialog shows for one agent: each part the person wrote, where it will land
 * (or why not), Baton's own note, and the bundle's digest. The same planner as the launch.
 */
import { SOURCE_NAMES, type InstructionText } from '../../../app/instructions/bundle.js';
import { levelLabel, planDelivery, type InstructionCapability, type PartLevel } from '../../../app/instructions/delivery.js';
import type { InstructionPreview } from '../../../app/ipc/contract.js';
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';
import { ownPromptSettings } from './deliverInstructions.js';
import type { InstructionSettings } from './InstructionSettings.js';

/** Builds the preview for `adapter` with the texts as the person has them now (saved or not). */
export function previewInstructions(options: {
  adapter: AgentAdapter;
  capability: InstructionCapability;
  settings: InstructionSettings;
  baseEnv: Env;
  person: InstructionText;
  conversation: InstructionText | null;
  /** The agent's profile as edited (defaults to the saved one). */
  profile?: InstructionText;
  /** The working folder, whose trusted instructions go in. */
  cwd?: string;
}): InstructionPreview {
  const { adapter, capability, settings, person, conversation, cwd } = options;
  const composed = settings.compose({ conversation, person, agentId: adapter.agentId, ...(options.profile ? { profile: options.profile } : {}), ...(cwd ? { cwd } : {}) });
  const folder = cwd ? settings.projects.read(cwd) : null;
  const saved = settings.profile(adapter.agentId);
  const agentSettings = settings.agent(adapter.agentId);
  const plan = planDelivery({
    agentName: adapter.displayName,
    capability,
    bundle: composed.bundle,
    settings: agentSettings,
    ownPrompt: ownPromptSettings(adapter, { args: adapter.args, env: { ...options.baseEnv, ...adapter.env } }),
    fragment: settings.fragment,
  });
  const lastReplace = composed.bundle.parts.findLastIndex((part) => part.intent === 'replace');
  const parts = composed.bundle.parts.map((part, index) => {
    const level: PartLevel =
      part.intent === 'replace' && index !== lastReplace
        ? { kind: 'off', reason: 'a later replacement wins over this one' }
        : (plan.levels[part.intent] ?? { kind: 'refused', reason: 'no channel' });
    return { source: part.source, sourceName: SOURCE_NAMES[part.source], intent: part.intent, text: part.text, level, label: levelLabel(level) };
  });
  return {
    agentId: adapter.agentId,
    agentName: adapter.displayName,
    parts,
    sha256: composed.sha256,
    fragment: plan.fragment,
    ...(plan.fragmentNote ? { fragmentNote: plan.fragmentNote } : {}),
    settings: agentSettings,
    channels: capability,
    commandLine: Object.values(capability).some((channel) => channel?.visibleInProcessList === true),
    refusal: plan.refusal ? plan.refusal.reason : null,
    profile: { text: saved.text, intent: saved.intent, revision: saved.revision },
    project: folder
      ? { state: folder.state, folder: folder.folder, text: folder.text, sha256: folder.sha256, problem: folder.problem, trustedText: folder.trusted?.text ?? null }
      : { state: 'none', folder: null, text: null, sha256: null, problem: null, trustedText: null },
  };
}
