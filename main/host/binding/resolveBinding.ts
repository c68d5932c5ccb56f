/**
 * The one place a binding is built and delivery is planned. Takes a conversation's agent, folder,
 * toolbox and composed instructions, and the agent's `initialize` answer (or, before it has
 * answered, what its adapter expects), and returns the immutable {@link PreparedBinding}: its
 * launch part and session part with their digests, the delivery plan and every refusal with its
 * one text. Session start, reuse, the switch check and the dialog's preview all read this value.
 */
import type { Machine } from '../machine/Machine.js';
import { UnsupportedInputError } from '../../../app/errors.js';
import type { EventDraft } from '../../../app/events/index.js';
import { intentInputName, planDelivery, type DeliveredInstructions } from '../../../app/instructions/delivery.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import type { InitializeResponse } from '../acp/AgentConnection.js';
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';
import {
  BATON_META,
  capabilityOf,
  negotiatesInstructions,
  ownPromptSettings,
  splitDelivered,
} from '../instructions/deliverInstructions.js';
import type { SessionFolder } from '../process/SessionFolder.js';
import type { LaunchSpec } from '../machine/ProcessGroup.js';
import { digestOf, launchDigest, ownLaunch } from './ownLaunch.js';
import { refusedServers } from '../toolbox/admission.js';
import type { Instructions, LaunchPart, PreparedBinding, SessionPart, SystemPrompt } from './PreparedBinding.js';

/** What {@link resolveBinding} is given. */
export type BindingRequest = {
  adapter: AgentAdapter;
  /** The agent's executable, resolved on PATH. */
  executable: string;
  /** The environment agents inherit. */
  baseEnv: Env;
  cwd: string;
  mcpServers?: readonly McpServer[];
  instructions?: Instructions | null;
  chosenOptions?: Readonly<Record<string, string>>;
  /** The agent's answer to `initialize`; undefined before it has answered (the adapter's expectations stand in). */
  initialized?: InitializeResponse;
  /**
   * Puts a server that holds secret values behind Baton's launcher, for agents that write their
   * server config where other users can read it (see `AgentAdapter.exposesServerConfig`).
   */
  shield?: (server: McpServer) => McpServer;
  /** The machine the agent runs on, `executable`, `baseEnv` and `cwd` being of that machine (default: this computer). */
  machine?: Machine;
};

/** The refusals for servers the agent cannot take. */
function serverRefusals(
  adapter: AgentAdapter,
  servers: readonly McpServer[],
  initialized: InitializeResponse | undefined,
): UnsupportedInputError[] {
  if (servers.length === 0) {
    return [];
  }
  if (adapter.takesMcpServers === false) {
    return [
      new UnsupportedInputError(
        adapter.displayName,
        `the conversation's toolbox (${servers.length} MCP server(s))`,
        'it does not use MCP servers, so the tools you picked would be silently missing; choose no tools in Toolbox for it',
      ),
    ];
  }
  return initialized ? refusedServers(adapter.displayName, servers, initialized) : [];
}

/** Resolves the binding. Pure but for the files a launch channel writes, which wait for {@link LaunchPart.materialize}. */
export function resolveBinding(request: BindingRequest): PreparedBinding {
  const { adapter, executable, baseEnv, cwd, initialized } = request;
  const instructions = request.instructions ?? null;
  const own = ownLaunch(adapter, executable, baseEnv, cwd);
  const refusals: UnsupportedInputError[] = serverRefusals(adapter, request.mcpServers ?? [], initialized);
  const capability = capabilityOf(adapter, initialized);
  const negotiated = initialized !== undefined;
  const plan = planDelivery({
    agentName: adapter.displayName,
    capability,
    bundle: instructions ?? { replace: null, append: null },
    settings: instructions?.settings ?? { off: false, commandLineAccepted: false, contextAsText: false },
    ownPrompt: ownPromptSettings(adapter, own),
    fragment: instructions?.fragment ?? false,
  });
  // An agent that negotiates its channels is judged on its answer, never on a guess before it.
  const judged = negotiated || !negotiatesInstructions(adapter);
  if (instructions && plan.refusal && judged) {
    refusals.push(new UnsupportedInputError(adapter.displayName, intentInputName(plan.refusal.intent), plan.refusal.reason));
  }
  const delivered: DeliveredInstructions = instructions && plan.delivered ? plan.delivered : { replace: null, append: null };
  const split = splitDelivered(capability, delivered, negotiatesInstructions(adapter));

  // The launch part: the agent's own channels that ride the process (arguments, environment, files).
  const project = adapter.instructions?.project;
  const launchTexts = project && (split.own.replace !== null || split.own.append !== null) ? split.own : null;
  const launch: LaunchPart = Object.freeze({
    own,
    ...(launchTexts
      ? {
          channel:
            capability.replace?.via && launchTexts.replace !== null ? capability.replace.via : (capability.append?.via ?? 'its launch'),
        }
      : {}),
    digest: launchDigest(own, launchTexts),
    materialize: (folder: () => SessionFolder): LaunchSpec => (launchTexts && project ? project(own, launchTexts, folder) : own),
  });

  // The session part: the standard system prompt, the agent's own `_meta` channel or Baton's extension.
  const systemPrompt: SystemPrompt | undefined =
    split.standard.replace !== null
      ? {
          mode: 'override',
          content: [
            {
              type: 'text',
              text: split.standard.append === null ? split.standard.replace : `${split.standard.replace}\n\n${split.standard.append}`,
            },
          ],
        }
      : split.standard.append !== null
        ? { mode: 'append', content: [{ type: 'text', text: split.standard.append }] }
        : undefined;
  const ownMeta =
    !project && (split.own.replace !== null || split.own.append !== null) ? adapter.instructions?.sessionMeta?.(split.own) : undefined;
  const extensionMeta =
    split.extension.replace !== null || split.extension.append !== null ? { [BATON_META]: { instructions: split.extension } } : undefined;
  const mcpServers = Object.freeze(
    (request.mcpServers ?? []).map((server) => (adapter.exposesServerConfig && request.shield ? request.shield(server) : server)),
  );
  const toolboxMeta = mcpServers.length > 0 ? adapter.toolboxSessionMeta : undefined;
  const meta = ownMeta || extensionMeta || toolboxMeta ? { ...toolboxMeta, ...ownMeta, ...extensionMeta } : undefined;
  const chosenOptions = Object.freeze({ ...(request.chosenOptions ?? {}) });
  const sessionFields = {
    cwd,
    mcpServers,
    ...(systemPrompt ? { systemPrompt } : {}),
    ...(meta ? { meta } : {}),
    permissionMode: 'ask' as const,
    chosenOptions,
  };
  const session: SessionPart = Object.freeze({ ...sessionFields, digest: digestOf({ ...sessionFields, chosenOptions: undefined }) });

  const agentVersion = initialized?.agentInfo?.version;
  return Object.freeze({
    agentId: adapter.agentId,
    agentName: adapter.displayName,
    ...(agentVersion ? { agentVersion } : {}),
    cwd,
    mcpServers,
    instructions: instructions ? Object.freeze({ ...instructions, settings: Object.freeze({ ...instructions.settings }) }) : null,
    permissionMode: 'ask' as const,
    launch,
    session,
    plan,
    channels: capability,
    negotiated,
    refusals: Object.freeze(refusals),
  });
}

/**
 * The `binding.changed` draft when a session bound as `bound` (its agent answered `initialize` with
 * `initialized`) is not what `request` resolves to now (either digest differs); undefined when it
 * is. The one check of whether a session can be reused for a turn (a live one, an early one).
 */
export function bindingChange(bound: PreparedBinding, initialized: InitializeResponse, request: BindingRequest): EventDraft | undefined {
  const wanted = resolveBinding({ ...request, initialized });
  if (wanted.launch.digest === bound.launch.digest && wanted.session.digest === bound.session.digest) {
    return undefined;
  }
  const changed = [
    ...(JSON.stringify(bound.mcpServers) !== JSON.stringify(wanted.mcpServers) ? ['the toolbox'] : []),
    ...(bound.instructions?.sha256 !== wanted.instructions?.sha256 ||
    JSON.stringify(bound.instructions?.settings) !== JSON.stringify(wanted.instructions?.settings)
      ? ['the instructions']
      : []),
  ];
  return {
    type: 'binding.changed',
    payload: {
      ...(wanted.instructions ? { instructionsDigest: wanted.instructions.sha256 } : {}),
      launchDigest: wanted.launch.digest,
      sessionDigest: wanted.session.digest,
      changed: changed.length > 0 ? changed : ["the agent's settings"],
    },
  };
}

/** Throws the first thing the binding's agent cannot take. */
export function requireBindable(binding: PreparedBinding): void {
  const [first] = binding.refusals;
  if (first) {
    throw first;
  }
}
