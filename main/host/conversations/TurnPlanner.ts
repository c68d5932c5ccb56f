/**
 * What a turn runs under, decided once per turn from the conversation's settings: the injectors it
 * selects, its instructions composed, the servers of its toolbox, and the one binding request its
 * session is resolved from (the agent and its executable, the instructions as that agent takes
 * them, the servers resolved, the person's choices). `Turns.send` plans every turn here; an early
 * session for a conversation about to start is planned the same way, so that its first turn finds
 * the same binding. What an agent a conversation passes to cannot take is refused here too, before
 * anything is committed.
 */
import { LOCAL_MACHINE_ID, type Machine } from '../machine/Machine.js';
import type { Machines } from '../machine/Machines.js';
import { InvalidRequestError, NotFoundError, UnsupportedInputError } from '../../../app/errors.js';
import type { Injector } from '../../../app/instructions/injectors.js';
import type { ConversationContext } from '../../../app/transcript/context.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import { requireBindable, resolveBinding, type BindingRequest } from '../binding/resolveBinding.js';
import { NO_SOURCES, type ComposedInstructions, type InstructionSources } from '../instructions/InstructionSettings.js';
import type { ToolboxCatalog } from '../toolbox/ToolboxCatalog.js';
import type { ConversationParts } from './ConversationSettings.js';

/** What Baton's MCP launcher (`toolbox/LaunchRegistry.ts`) is asked for the conversations' sessions. */
export type LauncherGrants = {
  /** The server as the conversation's agent is given it. */
  shield(server: McpServer, conversationId: string): McpServer;
  /** Answers the conversation's shielded servers until the returned revocation runs (the session ends). */
  grant(conversationId: string, servers: readonly McpServer[]): () => void;
};

/** Where a conversation's agent works. */
export type Place = {
  agentId: string;
  cwd: string;
  /** The machine `cwd` is on (its id; absent: this computer). */
  machine?: string;
};

/** A turn as composed from its conversation's context (see {@link TurnPlanner.compose}). */
export type ComposedTurn = {
  injectors: Injector[];
  /** Why the turn cannot run (an injector that cannot be used), found before any agent is asked. */
  refusal: unknown;
  /** Sent without the person's instructions this time. */
  without: boolean;
  instructions: ComposedInstructions;
  /** Sent without the conversation's tools this time. */
  withoutTools: boolean;
  serverIds: string[];
};

/** What turns are planned with. */
export type TurnPlannerDeps = Pick<ConversationParts, 'store' | 'access' | 'agentEnv' | 'instructions' | 'pool'> & {
  /** The MCP servers conversations may use. */
  toolbox: ToolboxCatalog;
  /** The person's home folder (`${userHome}` in a server's settings). */
  homeDir: string;
  /** Baton's MCP launcher: servers holding secrets go behind it, for agents that expose their server config. */
  launcher?: Pick<LauncherGrants, 'shield'>;
  /** The machines conversations may be on (absent: only this computer). */
  machines?: Pick<Machines, 'openOf' | 'executableOn'>;
  /** The host's own machine (where a place without one is). */
  home: Machine;
};

/** What a turn composes from, read on its folder's machine; `failed`: why it could not be read (the turn's refusal). */
export type TurnSources = InstructionSources & { failed?: unknown };

/**
 * A server holding secrets, for an agent that writes its server settings where others can read
 * them, goes behind Baton's launcher (`shielded`); the launcher runs on this computer only, so on
 * another machine such a server is refused with why, never handed over with its secrets.
 */
function shieldOn(machine: Machine | undefined, agentName: string, server: McpServer, shielded: McpServer): McpServer {
  if (machine && shielded !== server) {
    throw new UnsupportedInputError(
      agentName,
      `the MCP server "${server.name}" on ${machine.name}`,
      `it holds secret values, which ${agentName} there would write where other users can read them; Baton's launcher, which keeps them away, runs on this computer only for now`,
    );
  }
  return shielded;
}

/** Plans turns: the one way a turn's binding request is built. */
export class TurnPlanner {
  constructor(private readonly deps: TurnPlannerDeps) {}

  /**
   * The turn from its conversation's context: the injectors it selects (one that cannot be used is
   * the turn's refusal), its instructions composed and the servers of its toolbox, less what the
   * person left out for this turn only.
   */
  compose(
    context: Pick<ConversationContext, 'injectors' | 'instructions' | 'toolbox'>,
    sources: TurnSources,
    place: Place,
    options: { withoutInstructions?: boolean; withoutTools?: boolean } = {},
  ): ComposedTurn {
    const settings = this.deps.instructions;
    let injectors: Injector[] = [];
    const without = options.withoutInstructions === true;
    // Without the person's instructions this turn, what could not be read is not needed.
    let refusal: unknown = without ? undefined : sources.failed;
    try {
      injectors =
        context.injectors && !context.injectors.off && !without
          ? settings.injectors.resolve(context.injectors.names, sources.injectors)
          : [];
    } catch (error) {
      refusal ??= error;
    }
    // "Send without my instructions this time": an empty bundle for this turn only, said on the turn.
    const instructions = without
      ? settings.compose({ person: { text: '', intent: 'append' }, conversation: null, injectors: [] })
      : settings.compose({ conversation: context.instructions, agentId: place.agentId, project: sources.project?.text ?? null, injectors });
    // "Send without these tools this time": no server for this turn only, said on the turn; the toolbox stays for the next.
    const withoutTools = options.withoutTools === true && (context.toolbox?.servers.length ?? 0) > 0;
    const serverIds = withoutTools ? [] : (context.toolbox?.servers.map((server) => server.serverId) ?? []);
    return { injectors, refusal, without, instructions, withoutTools, serverIds };
  }

  /**
   * The binding request of the conversation's turn: the one function that turns its settings into
   * one. Throws what the agent cannot be bound for before it runs: not installed, too old for the
   * person's instructions, a server no longer in the toolbox.
   */
  request(
    conversationId: string,
    place: Place,
    turn: Pick<ComposedTurn, 'instructions' | 'serverIds'>,
    chosen: Readonly<Record<string, string>>,
  ): BindingRequest {
    const { access, agentEnv, instructions, launcher, machines } = this.deps;
    const machine = this.machineOf(place);
    const { adapter, executable } =
      machine && machines
        ? access.findOn(place.agentId, machine, (command) => machines.executableOn(machine.id, command))
        : access.find(place.agentId);
    const composed = instructions.forBinding(place.agentId, turn.instructions);
    access.requireCurrentFor(adapter, composed);
    return {
      adapter,
      executable,
      // On another machine, the agent gets that machine's environment, never this computer's.
      baseEnv: machine ? machine.env : agentEnv,
      ...(machine ? { machine } : {}),
      cwd: place.cwd,
      mcpServers: this.servers(conversationId, turn.serverIds, place.cwd, machine && { machine, agentName: adapter.displayName }),
      instructions: composed,
      chosenOptions: chosen,
      ...(launcher
        ? { shield: (server: McpServer) => shieldOn(machine, adapter.displayName, server, launcher.shield(server, conversationId)) }
        : {}),
    };
  }

  /**
   * Reads what a turn at `place` composes from, on the folder's machine: the working folder's
   * trusted instructions and injectors, and the person's own injectors. Never rejects: what could
   * not be read (a machine not connected) is the turn's refusal, after the person's message is kept.
   */
  async sources(place: Place): Promise<TurnSources> {
    try {
      const machine = this.machineOf(place) ?? this.deps.home;
      return await this.deps.instructions.sources({ machine, cwd: place.cwd });
    } catch (error) {
      return { ...NO_SOURCES, failed: error };
    }
  }

  /** The open machine of a place on another machine (undefined: this computer); see `Machines.openOf` for one not open. */
  private machineOf(place: Place): Machine | undefined {
    const machines = this.deps.machines;
    if (!place.machine || place.machine === LOCAL_MACHINE_ID) {
      return undefined;
    }
    if (!machines) {
      throw new InvalidRequestError(`This conversation is on a machine this Baton does not know (${place.machine}).`);
    }
    return machines.openOf(place.machine);
  }

  /** The conversation's servers, resolved as its next session would get them. */
  resolvedServers(conversationId: string): { servers: McpServer[]; cwd: string } {
    const { store } = this.deps;
    const summary = store.getSummary(conversationId);
    const serverIds = store.getContext(conversationId).toolbox?.servers.map((server) => server.serverId) ?? [];
    return { servers: this.servers(conversationId, serverIds, summary.cwd), cwd: summary.cwd };
  }

  /**
   * Resolves the servers chosen for a conversation; one removed from the catalog since is named in
   * the error. On another machine, `${env:…}` and `${userHome}` are that machine's, and a server
   * reached through Baton's bridge (which runs on this computer only) is refused with why.
   */
  private servers(
    conversationId: string,
    serverIds: readonly string[],
    cwd: string,
    there?: { machine: Machine; agentName: string },
  ): McpServer[] {
    const { toolbox, agentEnv, store, homeDir } = this.deps;
    if (serverIds.length === 0) {
      return [];
    }
    try {
      const scope = there
        ? { env: there.machine.env, workspaceFolder: cwd, userHome: there.machine.home }
        : { env: agentEnv, workspaceFolder: cwd, userHome: homeDir };
      const servers = toolbox.resolve(serverIds, scope);
      const bridged = there ? servers.find((server) => toolbox.isBridged(server)) : undefined;
      if (there && bridged) {
        throw new UnsupportedInputError(
          there.agentName,
          `the MCP server "${bridged.name}" on ${there.machine.name}`,
          `it is reached through Baton's bridge, which runs on this computer only for now`,
        );
      }
      return servers;
    } catch (error) {
      if (error instanceof NotFoundError) {
        const missing = store.getContext(conversationId).toolbox?.servers.find((server) => server.serverId === error.details?.id);
        throw new InvalidRequestError(
          `The MCP server "${missing?.name ?? String(error.details?.id)}" chosen for this conversation is no longer in your toolbox; choose its tools again in Toolbox.`,
        );
      }
      throw error;
    }
  }

  /**
   * Refuses, at a switch and before anything is committed or started, the first thing the agent the
   * conversation passes to cannot take (a toolbox for an agent without MCP, instructions it has no
   * channel for), read from the binding it would get with its last `initialize` answer this run, or
   * what its adapter expects before one; what only the answer can tell is checked when it starts.
   */
  refuseSwitch(request: BindingRequest): void {
    const initialized = this.deps.pool.knownAnswer(request.adapter.agentId, request.executable, request.machine);
    requireBindable(resolveBinding({ ...request, ...(initialized ? { initialized } : {}) }));
  }
}
