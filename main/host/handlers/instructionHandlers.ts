/**
 * Requests about standing instructions: the person's own and a conversation's, agent profiles, trusted folders, per-agent settings, the
 * delivery preview.
 */
import os from 'node:os';
import type { DeliveryPlan, InstructionCapability } from '../../../app/instructions/delivery.js';
import { resolveBinding } from '../binding/resolveBinding.js';
import { negotiatesInstructions } from '../instructions/deliverInstructions.js';
import type { ComposedInstructions } from '../instructions/InstructionSettings.js';
import type { FolderPlace } from '../instructions/ProjectInstructions.js';
import { previewInstructions } from '../instructions/previewInstructions.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type InstructionMethods =
  'getInstructions' | 'saveInstructions' | 'saveAgentProfile' | 'setFolderTrust' | 'previewInstructions' | 'setAgentInstructionSettings';

/** A working folder on its machine (connected for it, or refused with why). */
async function placeOf(machines: HostParts['machines'], cwd: string, machineId: string | undefined): Promise<FolderPlace> {
  return { machine: machineId === undefined ? machines.local : await machines.connect(machineId), cwd };
}

/** The instructions' handlers. */
export function instructionHandlers({
  store,
  catalog,
  probe,
  pool,
  env,
  instructions: settings,
  conversations,
  machines,
  planner,
}: HostParts): HandlerGroup<InstructionMethods> {
  return {
    getInstructions: ({ conversationId }) => ({
      person: settings.person(),
      conversation: conversationId ? store.getContext(conversationId).instructions : null,
      injectors: conversationId ? store.getContext(conversationId).injectors : null,
    }),
    saveInstructions: async ({ person, conversationId, conversation, injectors }) => {
      if (person) {
        settings.setPerson(person);
      }
      if (conversationId && conversation) {
        // The folder's trusted text counts toward the size of the conversation's instructions (read on its machine).
        const { project } = await planner.sources(store.getSummary(conversationId));
        conversations.setInstructions(conversationId, conversation, project?.text ?? null);
      }
      if (conversationId && injectors) {
        const current = store.getContext(conversationId).injectors;
        if (JSON.stringify(current ?? { names: [], off: false }) !== JSON.stringify(injectors)) {
          conversations.setInjectors(conversationId, injectors);
        }
      }
      return {};
    },
    saveAgentProfile: ({ agentId, profile }) => {
      catalog.get(agentId);
      return { revision: settings.setProfile(agentId, profile).revision };
    },
    setFolderTrust: async ({ cwd, machineId, trusted, sha256 }) => {
      const place = await placeOf(machines, cwd, machineId);
      if (trusted) {
        await settings.projects.trust(place, sha256 ?? '');
      } else {
        await settings.projects.untrust(place);
      }
      return {};
    },
    previewInstructions: async ({ agentId, person, conversation, profile, cwd, machineId, injectors }) => {
      const adapter = catalog.get(agentId);
      // The folder as it is on its machine, and what the person trusted of it.
      const place = cwd === undefined ? undefined : await placeOf(machines, cwd, machineId);
      const folder = place ? await settings.projects.read(place) : null;
      const sources = await settings.sourcesWith(settings.projects.given(folder ?? undefined));
      const selected = injectors && !injectors.off ? injectors.names : [];
      // The card is asked for only when it is needed (it is cached): for agents that negotiate
      // their channels, and for whether per-turn context can travel as embedded resources.
      const available = settings.injectors.available(sources.injectors);
      const perTurn = available.injectors.some(
        (injector) => selected.includes(injector.name) && (injector.when !== 'every_turn' || injector.context.length > 0),
      );
      const card = negotiatesInstructions(adapter)
        ? await probe.describe(agentId)
        : perTurn
          ? await probe.describe(agentId).catch(() => undefined)
          : undefined;
      const executable = catalog.resolve(adapter) ?? adapter.command;
      // The agent's own answer where one was read this run (the card reads one), else what its adapter expects.
      const initialized = pool.knownAnswer(agentId, executable);
      const plan = (composed: ComposedInstructions): { plan: DeliveryPlan; channels: InstructionCapability } => {
        const binding = resolveBinding({
          adapter,
          executable,
          baseEnv: env,
          cwd: cwd ?? env.HOME ?? os.homedir(),
          instructions: settings.forBinding(agentId, composed),
          ...(initialized ? { initialized } : {}),
        });
        return { plan: binding.plan, channels: binding.channels };
      };
      return {
        preview: previewInstructions({
          adapter,
          plan,
          settings,
          person,
          conversation,
          injectors: injectors ?? { names: [], off: false },
          available,
          ...(card ? { embeddedContext: card.prompt.embeddedContext } : {}),
          ...(profile ? { profile } : {}),
          project: sources.project?.text ?? null,
          folder,
        }),
      };
    },
    setAgentInstructionSettings: ({ agentId, settings: chosen }) => {
      catalog.get(agentId);
      settings.setAgent(agentId, chosen);
      return {};
    },
  };
}
