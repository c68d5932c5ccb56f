/**
 * What the Instructions dialog shows for one agent: each part the person wrote, where it will land
 * (or why not), Baton's own note, and the bundle's digest. The plan is the binding's own.
 */
import { SOURCE_NAMES, type InstructionText } from '../../../app/instructions/bundle.js';
import { perTurnContent, TIMING_NAMES, type Injector, type InjectorChoice } from '../../../app/instructions/injectors.js';
import { levelLabel, type DeliveryPlan, type InstructionCapability, type PartLevel } from '../../../app/instructions/delivery.js';
import type { InstructionPreview } from '../../../app/ipc/contract.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import { sha256Hex } from '../sha256.js';
import type { AvailableInjectors } from './InjectorRegistry.js';
import type { ComposedInstructions, InstructionSettings } from './InstructionSettings.js';
import type { FolderInstructions } from './ProjectInstructions.js';

/** Builds the preview for `adapter` with the texts as the person has them now (saved or not). */
export function previewInstructions(options: {
  adapter: AgentAdapter;
  /** The delivery plan for composed instructions: the binding the agent would get (`resolveBinding`). */
  plan: (composed: ComposedInstructions) => { plan: DeliveryPlan; channels: InstructionCapability };
  settings: InstructionSettings;
  person: InstructionText;
  conversation: InstructionText | null;
  /** The agent's profile as edited (defaults to the saved one). */
  profile?: InstructionText;
  /** The working folder's trusted text, which goes in (read with `InstructionSettings.sources`). */
  project: string | null;
  /** The working folder as it is now, and its trust (null: no working folder). */
  folder: FolderInstructions | null;
  /** The injectors as the person has them selected now, and what the folder makes available (read once by the caller). */
  injectors: InjectorChoice;
  available: AvailableInjectors;
  /** Whether the agent takes embedded context (unknown until it has been asked). */
  embeddedContext?: boolean;
}): InstructionPreview {
  const { adapter, settings, person, conversation, folder } = options;
  const { available } = options;
  const selectedNames = options.injectors.off ? [] : options.injectors.names;
  const selected = selectedNames.flatMap((name) => available.injectors.filter((injector) => injector.name === name));
  const composed = settings.compose({
    conversation,
    person,
    agentId: adapter.agentId,
    injectors: selected,
    ...(options.profile ? { profile: options.profile } : {}),
    project: options.project,
  });
  const saved = settings.profile(adapter.agentId);
  const agentSettings = settings.agent(adapter.agentId);
  const { plan, channels } = options.plan(composed);
  const lastReplace = composed.bundle.parts.findLastIndex((part) => part.intent === 'replace');
  const parts = composed.bundle.parts.map((part, index) => {
    const level: PartLevel =
      part.intent === 'replace' && index !== lastReplace
        ? { kind: 'off', reason: 'a later replacement wins over this one' }
        : (plan.levels[part.intent] ?? { kind: 'refused', reason: 'no channel' });
    const sourceName = part.source === 'injector' ? `Injector "${part.name ?? ''}" (every turn)` : SOURCE_NAMES[part.source];
    return {
      source: part.source,
      sourceName,
      ...(part.name !== undefined ? { name: part.name } : {}),
      intent: part.intent,
      text: part.text,
      level,
      label: levelLabel(level),
      sha256: composed.sources[index]?.sha256 ?? '',
    };
  });
  const perTurn = selected.flatMap((injector) =>
    perTurnPart(injector, adapter.displayName, agentSettings.contextAsText, options.embeddedContext),
  );
  return {
    agentId: adapter.agentId,
    agentName: adapter.displayName,
    parts,
    perTurn,
    injectors: {
      available: available.injectors.map((injector) => ({
        name: injector.name,
        description: injector.description,
        timing: injector.when,
        timingName: TIMING_NAMES[injector.when],
        origin: injector.origin,
        folder: injector.folder,
        ignored: [...injector.ignored],
        selected: options.injectors.names.includes(injector.name),
      })),
      // A selected name that is neither available nor broken has vanished: shown so it can be cleared.
      broken: [
        ...available.broken.map((entry) => ({ ...entry, selected: options.injectors.names.includes(entry.name) })),
        ...options.injectors.names
          .filter(
            (name) =>
              !available.injectors.some((injector) => injector.name === name) && !available.broken.some((entry) => entry.name === name),
          )
          .map((name) => ({
            name,
            origin: 'data' as const,
            folder: '',
            problem: 'no injector of that name can be found any more',
            selected: true,
          })),
      ],
      off: options.injectors.off,
    },
    sha256: composed.sha256,
    fragment: plan.fragment,
    ...(plan.fragmentNote ? { fragmentNote: plan.fragmentNote } : {}),
    settings: agentSettings,
    channels,
    commandLine: Object.values(channels).some((channel) => channel?.visibleInProcessList === true),
    refusal: plan.refusal ? plan.refusal.reason : null,
    profile: { text: saved.text, intent: saved.intent, revision: saved.revision },
    project: folder
      ? {
          state: folder.state,
          folder: folder.folder,
          text: folder.text,
          sha256: folder.sha256,
          problem: folder.problem,
          trustedText: folder.trusted?.text ?? null,
          injectors: folder.injectors.map((entry) => ({
            dir: entry.dir,
            files: Object.entries(entry.files).map(([file, text]) => ({ file, text })),
            problem: entry.problem ?? null,
          })),
          changes: folder.changes,
        }
      : { state: 'none', folder: null, text: null, sha256: null, problem: null, trustedText: null, injectors: [], changes: [] },
  };
}

const WHEN: Record<Injector['when'], string> = { first_turn: 'the first turn only', every_turn: 'every turn', on_input: 'every turn' };

/** What one injector gives single turns, and how it would travel to this agent. */
function perTurnPart(
  injector: Injector,
  agentName: string,
  contextAsText: boolean,
  embeddedContext: boolean | undefined,
): InstructionPreview['perTurn'] {
  const text = perTurnContent(injector);
  if (text === null) {
    return [];
  }
  const when = injector.when === 'on_input' && injector.match ? `turns whose message matches /${injector.match}/` : WHEN[injector.when];
  const level: PartLevel =
    embeddedContext === false
      ? contextAsText
        ? { kind: 'per-turn', as: 'text' }
        : {
            kind: 'refused',
            reason: `${agentName} does not take embedded context; allow per-turn context as labelled text for it below, or deselect the injector`,
          }
      : { kind: 'per-turn', as: 'resource', ...(embeddedContext === undefined ? { unverified: true } : {}) };
  return [{ name: injector.name, timing: injector.when, when, text, level, label: levelLabel(level), sha256: sha256Hex(text) }];
}
