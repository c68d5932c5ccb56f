/**
 * Requests about standing instructions: the person's own and a conversation's, agent profiles, trusted folders, per-agent settings, the
 * delivery preview.
 */
import os from 'node:os';
import type { DeliveryPlan, InstructionCapability } from '../../../app/instructions/delivery.js';
import { InvalidRequestError } from '../../../app/errors.js';
import { resolveBinding } from '../binding/resolveBinding.js';
import { negotiatesInstructions } from '../instructions/deliverInstructions.js';
import type { ComposedInstructions } from '../instructions/InstructionSettings.js';
import { previewInstructions } from '../instructions/previewInstructions.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type InstructionMethods =
  'getInstructions' | 'saveInstructions' | 'saveAgentProfile' | 'setFolderTrust' | 'previewInstructions' | 'setAgentInstructionSettings';

/** Why a folder on another machine contributes none of its own instructions (see `folderOf`). */
const ELSEWHERE =
  "Baton does not read a working folder's own instructions (.baton/instructions.md, .agents/instructions/) on another machine yet, so it contributes none";

/** A machine's name for a message (its id when it is not known). */
function nameOf(machines: HostParts['machines'], machineId: string): string {
  try {
    return machines.view(machineId).name;
  } catch {
    return machineId;
  }
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
}: HostParts): HandlerGroup<InstructionMethods> {
  return {
    getInstructions: ({ conversationId }) => ({
      person: settings.person(),
      conversation: conversationId ? store.getContext(conversationId).instructions : null,
      injectors: conversationId ? store.getContext(conversationId).injectors : null,
    }),
    saveInstructions: ({ person, conversationId, conversation, injectors }) => {
      if (person) {
        settings.setPerson(person);
      }
      if (conversationId && conversation) {
        conversations.setInstructions(conversationId, conversation);
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
    setFolderTrust: ({ cwd, machineId, trusted, sha256 }) => {
      if (machineId !== undefined && !machines.isLocal(machineId)) {
        throw new InvalidRequestError(`${cwd} on ${nameOf(machines, machineId)} cannot be trusted: ${ELSEWHERE}`);
      }
      if (trusted) {
        settings.projects.trust(cwd, sha256 ?? '');
      } else {
        settings.projects.untrust(cwd);
      }
      return {};
    },
    previewInstructions: async ({ agentId, person, conversation, profile, cwd, machineId, injectors }) => {
      const adapter = catalog.get(agentId);
      // A folder on another machine contributes nothing of its own (see folderOf): the preview says so.
      const elsewhere = cwd !== undefined && machineId !== undefined && !machines.isLocal(machineId);
      const folder = elsewhere ? undefined : cwd;
      const selected = injectors && !injectors.off ? injectors.names : [];
      // The card is asked for only when it is needed (it is cached): for agents that negotiate
      // their channels, and for whether per-turn context can travel as embedded resources.
      const available = settings.injectors.available(folder);
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
          ...(folder ? { cwd: folder } : {}),
          ...(elsewhere ? { elsewhere: `${cwd} on ${nameOf(machines, machineId)}: ${ELSEWHERE}` } : {}),
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
