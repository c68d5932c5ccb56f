/**
 * The host core: opens the store, the agent catalog and the conversations service, and answers
 * host API requests. Both transports (Electron IPC, WebSocket) hand it raw messages; it parses
 * params and results against the contract, so nothing unchecked crosses.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidRequestError, toWireError } from '../../app/errors.js';
import { isMethod, requests, type Method, type Params, type PushEvent, type ResponseBody, type Result } from '../../app/ipc/index.js';
import type { Env } from './adapters/AgentAdapter.js';
import { AgentCatalog } from './adapters/AgentCatalog.js';
import { AgentInstaller } from './adapters/AgentInstaller.js';
import { AgentProbe } from './adapters/AgentProbe.js';
import { AgentProcesses } from './pool/AgentProcesses.js';
import { LaunchRegistry } from './toolbox/LaunchRegistry.js';
import { agentSecrets } from './instructions/knownSecrets.js';
import { LoginTerminals } from './adapters/LoginTerminals.js';
import { AlwaysDecisions } from './conversations/AlwaysDecisions.js';
import { ConversationService } from './conversations/ConversationService.js';
import { HistoryService } from './conversations/HistoryService.js';
import { SessionImport } from './conversations/SessionImport.js';
import { negotiatesInstructions, ownPromptSettings } from './instructions/deliverInstructions.js';
import { resolveBinding } from './binding/resolveBinding.js';
import type { ComposedInstructions } from './instructions/InstructionSettings.js';
import type { DeliveryPlan, InstructionCapability } from '../../app/instructions/delivery.js';
import { previewInstructions } from './instructions/previewInstructions.js';
import { DataDirLock } from './store/DataDirLock.js';
import { ensurePrivateDataDir } from './store/privateDataDir.js';
import { SecretBox, type KeyWrapper } from './toolbox/SecretBox.js';
import { ServerImports } from './toolbox/ServerImports.js';
import { listServerTools } from './toolbox/listServerTools.js';
import { emptyTranscript, reduceAll } from '../../app/transcript/index.js';
import { ToolboxCatalog, type BridgeLaunch } from './toolbox/ToolboxCatalog.js';
import { findExecutable } from './process/findExecutable.js';
import { EventStore } from './store/EventStore.js';
import type { OpenOptions } from './store/openDatabase.js';
import { folderCompletions, folderFiles } from './files/folderFiles.js';

/** How to build a host. */
export type HostOptions = {
  dataDir: string;
  /** Environment agents inherit (PATH decides which agents are found). */
  env?: Env;
  homeDir?: string;
  version?: string;
  log?: (message: string) => void;
  /** npm specs to install instead of an agent's pinned packages (tests install local tarballs). */
  agentPackages?: Readonly<Record<string, readonly string[]>>;
  /** Store options for tests (a size limit to simulate a full disk). */
  storeOptions?: OpenOptions;
  /** Wraps the key of the saved secrets with the desktop's keychain (Electron safeStorage). */
  keyWrapper?: KeyWrapper;
};

/** Turns of a transcript read when it is opened; earlier ones load on request. */
const DEFAULT_TURNS_SHOWN = 50;

type Handlers = { [M in Method]: (params: Params<M>) => Result<M> | Promise<Result<M>> };

/** A running host core. */
export class Host {
  readonly store: EventStore;
  readonly conversations: ConversationService;
  readonly history: HistoryService;
  /** The MCP servers conversations may use. */
  readonly toolbox: ToolboxCatalog;
  private readonly catalog: AgentCatalog;
  private readonly probe: AgentProbe;
  /** The agent processes, shared by conversations, cards and log-ins. */
  private readonly pool: AgentProcesses;
  /** Holds the servers with secrets for agents that would put them on a command line. */
  private readonly launcher: LaunchRegistry;
  readonly imports: SessionImport;
  private readonly logins: LoginTerminals;
  private readonly handlers: Handlers;
  private readonly lock: DataDirLock;
  private readonly serverImports: ServerImports;
  /** The person's "always" answers to permission questions. */
  private readonly always: AlwaysDecisions;

  /** Opens the data folder; throws DataDirInUse or StoreError with a readable message. */
  constructor(private readonly options: HostOptions) {
    const env = options.env ?? definedEnv(process.env);
    try {
      const tightened = ensurePrivateDataDir(options.dataDir);
      if (tightened.length > 0) {
        options.log?.(`The data folder was open to other users of this machine; made owner-only (folders 0700, files 0600): ${tightened.join(', ')}`);
      }
    } catch (error) {
      // Not ours to change (another owner, a read-only mount): the lock and the store say what matters.
      options.log?.(`Could not make the data folder owner-only: ${(error as Error).message}`);
    }
    this.lock = DataDirLock.acquire(options.dataDir);
    try {
      this.store = new EventStore(options.dataDir, options.storeOptions);
    } catch (error) {
      this.lock.release();
      throw error;
    }
    try {
      this.toolbox = new ToolboxCatalog(this.store, SecretBox.forDataDir(options.dataDir, options.keyWrapper, options.log), bridgeLaunch(env));
    } catch (error) {
      this.store.close();
      this.lock.release();
      throw error;
    }
    this.serverImports = new ServerImports(this.toolbox, options.homeDir ?? os.homedir(), env.APPDATA);
    const installer = new AgentInstaller(options.dataDir, env, (progress) => this.conversations.committer.push({ name: 'agentInstallProgress', payload: progress }), options.agentPackages);
    this.catalog = new AgentCatalog(options.dataDir, env, installer);
    this.pool = new AgentProcesses(options.log);
    this.probe = new AgentProbe(this.catalog, env, this.pool);
    const toolbox = this.toolbox;
    this.launcher = LaunchRegistry.open({ dataDir: options.dataDir, launch: bridgeLaunch(env, 'mcpLauncher.js'), secrets: () => [...toolbox.secretValues(), ...agentSecrets(env, this.catalog.adapters())], ...(options.log ? { log: options.log } : {}) });
    this.conversations = new ConversationService(this.store, this.catalog, env, options.log, options.dataDir, this.toolbox, options.homeDir ?? os.homedir(), this.pool, (server) => this.launcher.shield(server));
    this.history = new HistoryService(
      this.store,
      this.conversations,
      async (agentId, sessionId) => {
        // An agent that is gone from this machine has nothing to delete here.
        if (this.catalog.resolve(this.catalog.get(agentId))) {
          await this.probe.deleteSession(agentId, sessionId);
        }
      },
      options.log,
    );
    this.always = new AlwaysDecisions(this.store, this.catalog, this.conversations);
    this.imports = new SessionImport(this.store, this.conversations.committer, this.probe);
    this.logins = new LoginTerminals(this.catalog, this.probe, env, (event) => this.conversations.committer.push({ name: 'loginTerminal', payload: event }));
    this.conversations.recoverInterruptedTurns();
    this.handlers = {
      getHostInfo: () => ({
        homeDir: this.options.homeDir ?? os.homedir(),
        dataDir: this.options.dataDir,
        version: this.options.version ?? '0.1.0',
        terminalLogin: this.logins.supported,
      }),
      listAgents: () => ({ agents: this.catalog.list() }),
      listFolderFiles: ({ cwd, query }) => folderFiles(cwd, query),
      listFolders: ({ typed }) => ({ folders: folderCompletions(typed, this.options.homeDir ?? os.homedir()) }),
      describeAgent: async ({ agentId }) => {
        const card = await this.probe.describe(agentId);
        return { card: { ...card, instructions: `${card.instructions}${this.instructionNotes(agentId, env)}` } };
      },
      authenticateAgent: async ({ agentId, methodId }) => {
        await this.probe.authenticate(agentId, methodId);
        return {};
      },
      installAgent: async ({ agentId }) => {
        await installer.install(this.catalog.get(agentId));
        this.probe.forget(agentId);
        return { agents: this.catalog.list() };
      },
      removeAgent: async ({ agentId }) => {
        await installer.remove(this.catalog.get(agentId));
        this.probe.forget(agentId);
        return { agents: this.catalog.list() };
      },
      startLoginTerminal: async ({ agentId, methodId, cols, rows }) => ({ terminalId: await this.logins.start(agentId, methodId, { cols, rows }) }),
      loginTerminalInput: ({ terminalId, data }) => {
        this.logins.input(terminalId, data);
        return {};
      },
      closeLoginTerminal: async ({ terminalId }) => {
        await this.logins.close(terminalId);
        return {};
      },
      logoutAgent: async ({ agentId }) => {
        await this.probe.logout(agentId);
        return {};
      },
      listAgentSessions: ({ agentId, cwd }) => this.imports.list(agentId, cwd),
      importAgentSession: ({ agentId, sessionId, cwd }) => this.imports.import(agentId, sessionId, cwd),
      listConversations: (query) => this.store.listSummaries(query),
      renameConversation: ({ conversationId, title }) => ({ conversation: this.history.rename(conversationId, title) }),
      setArchived: ({ conversationId, archived }) => ({ conversation: this.history.setArchived(conversationId, archived) }),
      deleteConversation: async ({ conversationId }) => ({ conversation: await this.history.delete(conversationId) }),
      restoreConversation: ({ conversationId }) => ({ conversation: this.history.restore(conversationId) }),
      purgeConversation: async ({ conversationId }) => {
        await this.history.purge(conversationId);
        return {};
      },
      searchConversations: ({ text, ...filters }) => ({ results: this.store.search({ text, ...filters }) }),
      exportConversation: ({ conversationId, format }) => this.history.export(conversationId, format),
      exportAllConversations: () => this.history.exportAll(),
      importConversation: ({ content }) => ({ conversation: this.history.import(content) }),
      newConversation: ({ agentId, cwd, title, instructions, serverIds, injectors }) => ({ conversation: this.conversations.create(agentId, cwd, title, instructions, serverIds, injectors) }),
      listToolbox: () => ({ servers: this.toolbox.listServers(), toolboxes: this.toolbox.listToolboxes() }),
      getImportReview: ({ conversationId }) => ({ review: this.conversations.importReview.review(conversationId) }),
      confirmImport: ({ conversationId, cwd }) => {
        this.conversations.importReview.confirm(conversationId, cwd);
        return {};
      },
      addServer: ({ server }) => ({ server: this.toolbox.addServer(server) }),
      scanServerImports: ({ cwd, file }) => this.serverImports.scan({ ...(cwd ? { cwd } : {}), ...(file ? { file } : {}) }),
      importServers: ({ candidateIds, inputs }) => ({ servers: this.serverImports.import(candidateIds, inputs) }),
      listConversationTools: async ({ conversationId }) => {
        const { servers, cwd } = this.conversations.resolvedServers(conversationId);
        const calls = reduceAll(emptyTranscript(conversationId), this.store.readEvents(conversationId).events).items.flatMap((item) => (item.kind === 'tool' ? [item.title] : []));
        const listed = await Promise.all(servers.map((server) => listServerTools(server, cwd, env)));
        const adapter = this.catalog.get(this.store.getSummary(conversationId).agentId);
        return {
          onDemand: adapter.loadsToolsOnDemand ? `${adapter.displayName} loads these tools on demand: its model is given their names, and fetches a tool's description when it needs it.` : null,
          servers: listed.map((entry) => ({
            ...entry,
            // Agents name MCP tools "mcp__<server>__<tool>" (Claude, Qwen) or "<server>/<tool>" (Codex).
            calledByAgent: entry.tools.filter((tool) => calls.some((title) => title.includes(`mcp__${entry.name}__${tool}`) || title.includes(`${entry.name}/${tool}`))),
          })),
        };
      },
      setServerBridge: ({ serverId, bridge }) => ({ server: this.toolbox.setBridge(serverId, bridge) }),
      removeServer: ({ serverId }) => {
        this.toolbox.removeServer(serverId);
        return {};
      },
      saveToolbox: (toolbox) => ({ toolbox: this.toolbox.saveToolbox(toolbox) }),
      removeToolbox: ({ toolboxId }) => {
        this.toolbox.removeToolbox(toolboxId);
        return {};
      },
      setConversationToolbox: ({ conversationId, serverIds }) => {
        this.conversations.setToolbox(conversationId, serverIds);
        return {};
      },
      getInstructions: ({ conversationId }) => ({
        person: this.conversations.instructions.person(),
        conversation: conversationId ? this.store.getContext(conversationId).instructions : null,
        injectors: conversationId ? this.store.getContext(conversationId).injectors : null,
      }),
      saveInstructions: ({ person, conversationId, conversation, injectors }) => {
        if (person) {
          this.conversations.instructions.setPerson(person);
        }
        if (conversationId && conversation) {
          this.conversations.setInstructions(conversationId, conversation);
        }
        if (conversationId && injectors) {
          const current = this.store.getContext(conversationId).injectors;
          if (JSON.stringify(current ?? { names: [], off: false }) !== JSON.stringify(injectors)) {
            this.conversations.setInjectors(conversationId, injectors);
          }
        }
        return {};
      },
      saveAgentProfile: ({ agentId, profile }) => {
        this.catalog.get(agentId);
        return { revision: this.conversations.instructions.setProfile(agentId, profile).revision };
      },
      setFolderTrust: ({ cwd, trusted, sha256 }) => {
        const projects = this.conversations.instructions.projects;
        if (trusted) {
          projects.trust(cwd, sha256 ?? '');
        } else {
          projects.untrust(cwd);
        }
        return {};
      },
      previewInstructions: async ({ agentId, person, conversation, profile, cwd, injectors }) => {
        const adapter = this.catalog.get(agentId);
        const settings = this.conversations.instructions;
        const selected = injectors && !injectors.off ? injectors.names : [];
        // The card is asked for only when it is needed (it is cached): for agents that negotiate
        // their channels, and for whether per-turn context can travel as embedded resources.
        const available = settings.injectors.available(cwd);
        const perTurn = available.injectors.some((injector) => selected.includes(injector.name) && (injector.when !== 'every_turn' || injector.context.length > 0));
        const card = negotiatesInstructions(adapter) ? await this.probe.describe(agentId) : perTurn ? await this.probe.describe(agentId).catch(() => undefined) : undefined;
        const executable = this.catalog.resolve(adapter) ?? adapter.command;
        // The agent's own answer where one was read this run (the card reads one), else what its adapter expects.
        const initialized = this.pool.knownAnswer(agentId, executable);
        const plan = (composed: ComposedInstructions): { plan: DeliveryPlan; channels: InstructionCapability } => {
          const binding = resolveBinding({ adapter, executable, baseEnv: env, cwd: cwd ?? env.HOME ?? os.homedir(), instructions: settings.forBinding(agentId, composed), ...(initialized ? { initialized } : {}) });
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
            ...(cwd ? { cwd } : {}),
          }),
        };
      },
      setAgentInstructionSettings: ({ agentId, settings }) => {
        this.catalog.get(agentId);
        this.conversations.instructions.setAgent(agentId, settings);
        return {};
      },
      openConversation: ({ conversationId, turns, aroundSeq, maxEvents }) => {
        // Chunks still waiting for their group commit are written first, so nothing is missing.
        this.conversations.committer.flush(conversationId);
        const conversation = this.store.getSummary(conversationId);
        const { firstSeq, envelopes, nextSeq } = this.store.readTail(conversationId, turns ?? DEFAULT_TURNS_SHOWN, aroundSeq, maxEvents);
        return { conversation, events: envelopes, firstSeq, nextSeq, context: this.store.getContext(conversationId) };
      },
      readConversationEvents: ({ conversationId, fromSeq, limit }) => {
        this.conversations.committer.flush(conversationId);
        // An unknown conversation is NotFound, not an empty page.
        this.store.getSummary(conversationId);
        const { envelopes, nextSeq } = this.store.readPage(conversationId, fromSeq, limit);
        return { events: envelopes, nextSeq };
      },
      sendMessage: ({ conversationId, text, agentId, attachments }) => this.conversations.send(conversationId, text, agentId, attachments),
      steerMessage: async ({ conversationId, text }) => ({ steered: await this.conversations.steer(conversationId, text) }),
      cancelTurn: async ({ conversationId }) => ({ cancelled: await this.conversations.cancel(conversationId) }),
      setSessionOption: async ({ conversationId, optionId, value }) => {
        await this.conversations.chooseOption(conversationId, optionId, value);
        return {};
      },
      answerPermission: ({ conversationId, requestId, optionId }) => {
        this.always.noteAnswer(conversationId, requestId, this.conversations.answerPermission(conversationId, requestId, optionId));
        return {};
      },
      listAlwaysDecisions: () => ({ decisions: this.always.list() }),
      revokeAlwaysDecision: ({ id }) => {
        const { note } = this.always.revoke(id);
        return { decisions: this.always.list(), note };
      },
      answerElicitation: ({ conversationId, requestId, action, content }) => {
        this.conversations.answerElicitation(conversationId, requestId, action, content);
        return {};
      },
    };
  }

  /** What the card adds about instructions for this person: their own prompt settings in force, delivery turned off. */
  private instructionNotes(agentId: string, env: Env): string {
    const adapter = this.catalog.get(agentId);
    const own = ownPromptSettings(adapter, { args: adapter.args, env: { ...env, ...adapter.env } });
    const notes = Object.entries<string>(own).map(([intent, setting]) => ` Your own ${setting} is in force (${intent === 'replace' ? 'replacing' : 'adding to'} its prompt): Baton adds no second one.`);
    if (this.conversations.instructions.agent(agentId).off) {
      notes.push(` Baton's delivery is turned off for ${adapter.displayName}: it runs with only its own prompt.`);
    }
    return notes.join('');
  }

  /** Answers one request; never throws. */
  async handle(method: string, params: unknown): Promise<ResponseBody> {
    try {
      if (!isMethod(method)) {
        throw new InvalidRequestError(`Unknown method "${method}".`);
      }
      return { ok: true, result: await this.dispatch(method, params) };
    } catch (error) {
      return { ok: false, error: toWireError(error) };
    }
  }

  /** Adds a listener for pushed events; returns its removal. */
  subscribe(listener: (event: PushEvent) => void): () => void {
    return this.conversations.subscribe(listener);
  }

  /** Stops agents and closes the store. */
  async dispose(): Promise<void> {
    await this.logins.dispose();
    await this.conversations.dispose();
    await this.launcher.close();
    this.store.close();
    this.lock.release();
  }

  private async dispatch<M extends Method>(method: M, raw: unknown): Promise<Result<M>> {
    const parsed = requests[method].params.safeParse(raw ?? {});
    if (!parsed.success) {
      throw new InvalidRequestError(`Bad parameters for ${method}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`).join('; ')}`);
    }
    const handler = this.handlers[method] as (params: Params<M>) => Result<M> | Promise<Result<M>>;
    const result = await handler(parsed.data as Params<M>);
    return requests[method].result.parse(result) as Result<M>;
  }
}

/**
 * How Baton's stdio bridge runs: with Node (this process when it is Node, else the `node` the
 * agents' environment finds), on the built bridge next to this file.
 */
function bridgeLaunch(env: Env, file = 'mcpBridge.js'): BridgeLaunch {
  const built = fileURLToPath(new URL(`./toolbox/${file}`, import.meta.url));
  // Run from the sources (tests), the bridge is the built one.
  const script = existsSync(built) ? built : fileURLToPath(new URL(`../../dist/main/host/toolbox/${file}`, import.meta.url));
  const node = path.basename(process.execPath).startsWith('node') ? process.execPath : (findExecutable('node', env) ?? 'node');
  return { command: node, args: [script] };
}

/** process.env without undefined values. */
export function definedEnv(env: NodeJS.ProcessEnv): Env {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
