/**
 * The host core's composition root: opens the data folder (lock, store, toolbox), builds the
 * services once and hands each what it needs, and answers host API requests through the handler
 * modules in `handlers/`. Both transports (Electron IPC, WebSocket) hand it raw messages; it
 * parses params and results against the contract, so nothing unchecked crosses.
 */
import { definedEnv } from './process/env.js';
import { machineHandlers } from './handlers/machineHandlers.js';
import { watchAgentsFile } from './agents/agentsFileWatch.js';
import { LocalMachine } from './machine/LocalMachine.js';
import { LOCAL_MACHINE_ID, type Machine } from './machine/Machine.js';
import { containersForHost } from './machine/AttemptContainers.js';
import { Machines, type MachinesSshOptions } from './machine/Machines.js';
import os from 'node:os';
import { z } from 'zod';
import { InvalidRequestError, toWireError } from '../../app/errors.js';
import { isMethod, requests, type Method, type Params, type PushEvent, type ResponseBody, type Result } from '../../app/ipc/index.js';
import type { Env } from './adapters/AgentAdapter.js';
import { AgentAccess } from './agents/AgentAccess.js';
import { AgentCatalog } from './agents/AgentCatalog.js';
import { AgentRegistry } from './agents/registry/AgentRegistry.js';
import { AgentInstaller } from './agents/AgentInstaller.js';
import { AgentProbe } from './agents/AgentProbe.js';
import { LoginTerminals } from './agents/LoginTerminals.js';
import { Attempts } from './attempts/Attempts.js';
import { BranchCopies } from './attempts/BranchCopies.js';
import { CheckpointStore } from './checkpoints/CheckpointStore.js';
import { Rewinds } from './checkpoints/Rewinds.js';
import { TurnCheckpoints } from './checkpoints/TurnCheckpoints.js';
import { AlwaysDecisions } from './conversations/AlwaysDecisions.js';
import { Committer } from './conversations/Committer.js';
import { ConversationSettings } from './conversations/ConversationSettings.js';
import { HistoryService } from './conversations/HistoryService.js';
import { ImportReview } from './conversations/ImportReview.js';
import { LiveSessions } from './conversations/LiveSessions.js';
import { PendingFolders } from './conversations/PendingFolders.js';
import { SessionImport } from './conversations/SessionImport.js';
import { TurnPlanner } from './conversations/TurnPlanner.js';
import { Turns } from './conversations/Turns.js';
import { agentHandlers } from './handlers/agentHandlers.js';
import { attemptHandlers } from './handlers/attemptHandlers.js';
import { conversationHandlers } from './handlers/conversationHandlers.js';
import { historyHandlers } from './handlers/historyHandlers.js';
import { hostHandlers } from './handlers/hostHandlers.js';
import type { Handlers, HostParts } from './handlers/HostParts.js';
import { instructionHandlers } from './handlers/instructionHandlers.js';
import { rewindHandlers } from './handlers/rewindHandlers.js';
import { toolboxHandlers } from './handlers/toolboxHandlers.js';
import { InstructionSettings } from './instructions/InstructionSettings.js';
import { agentSecrets } from './process/knownSecrets.js';
import { SessionFolders } from './process/SessionFolder.js';
import { AgentProcesses } from './pool/AgentProcesses.js';
import { DataDirLock } from './store/DataDirLock.js';
import { EventStore } from './store/EventStore.js';
import type { OpenOptions } from './store/openDatabase.js';
import { ensurePrivateDataDir } from './store/privateDataDir.js';
import { LaunchRegistry } from './toolbox/LaunchRegistry.js';
import { SecretBox, type KeyWrapper } from './toolbox/SecretBox.js';
import { ServerImports } from './toolbox/ServerImports.js';
import { bridgeLaunch } from './toolbox/bridgeLaunch.js';
import { ToolboxCatalog } from './toolbox/ToolboxCatalog.js';

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
  /** The log file `log` writes to (Settings shows its last lines). */
  logFile?: string;
  /**
   * The machine agents, git, folder watches and checkpoint scans run on (default: this computer).
   * Tests give the loopback machine: the same host through the machine server. Its owner disposes it.
   */
  machine?: Machine;
  /**
   * How SSH machines are reached (default: ssh's own config and known hosts; `BATON_SSH_CONFIG`
   * names another config file, `BATON_SSH_KNOWN_HOSTS` other known-hosts files). Tests give their
   * sshd's config and no known-hosts files of the person's.
   */
  ssh?: MachinesSshOptions;
};

/** A running host core. */
export class Host {
  readonly store: EventStore;
  /** The only path from producers to the store and on to windows. */
  readonly committer: Committer;
  /** Creating conversations and changing what they are set up with. */
  readonly conversations: ConversationSettings;
  /** The turns of conversations. */
  readonly turns: Turns;
  /** The conversations' live agent sessions. */
  readonly sessions: LiveSessions;
  readonly history: HistoryService;
  /** The person's instruction settings (their own instructions, per-agent choices). */
  readonly instructions: InstructionSettings;
  /** Imported conversations waiting for the person's confirmation. */
  readonly importReview: ImportReview;
  /** The MCP servers conversations may use. */
  readonly toolbox: ToolboxCatalog;
  /** The agent processes, shared by conversations, cards and log-ins. */
  readonly pool: AgentProcesses;
  /** This computer: the machine every process, git run and folder watch of this host goes through. */
  readonly machine: Machine;
  /** The machines conversations can be on: this computer, and those reached over SSH. */
  readonly machines: Machines;
  /** Stops following agents.json. */
  private readonly stopAgentsWatch: () => void;
  /** Checkpoints of working folders, and those taken around turns. */
  readonly checkpoints: CheckpointStore;
  /** Rewinds, their undoing, and branches. */
  readonly rewinds: Rewinds;
  /** One message asked of several agents, each in its own copy of the folder. */
  readonly attempts: Attempts;
  readonly branchCopies: BranchCopies;
  readonly turnCheckpoints: TurnCheckpoints;
  readonly imports: SessionImport;
  private readonly catalog: AgentCatalog;
  /** Holds the servers with secrets for agents that would put them on a command line. */
  private readonly launcher: LaunchRegistry;
  private readonly logins: LoginTerminals;
  private readonly handlers: Handlers;
  private readonly lock: DataDirLock;
  private readonly listeners = new Set<(event: PushEvent) => void>();
  private readonly log: (message: string) => void;
  /** Copies left by attempts, looked at once on start. */
  private readonly recovered: Promise<void>;

  /** Opens the data folder; throws DataDirInUse or StoreError with a readable message. */
  constructor(options: HostOptions) {
    const env = options.env ?? definedEnv(process.env);
    const log = options.log ?? (() => {});
    this.log = log;
    const homeDir = options.homeDir ?? os.homedir();
    const { dataDir } = options;
    try {
      const tightened = ensurePrivateDataDir(dataDir);
      if (tightened.length > 0) {
        log(`The data folder was open to other users of this machine; made owner-only (folders 0700, files 0600): ${tightened.join(', ')}`);
      }
    } catch (error) {
      // Not ours to change (another owner, a read-only mount): the lock and the store say what matters.
      log(`Could not make the data folder owner-only: ${(error as Error).message}`);
    }
    this.lock = DataDirLock.acquire(dataDir);
    try {
      this.store = new EventStore(dataDir, options.storeOptions);
    } catch (error) {
      this.lock.release();
      throw error;
    }
    try {
      this.toolbox = new ToolboxCatalog(this.store, SecretBox.forDataDir(dataDir, options.keyWrapper, options.log), bridgeLaunch(env));
    } catch (error) {
      this.store.close();
      this.lock.release();
      throw error;
    }
    const toolbox = this.toolbox;
    // This computer: every process, git run and folder watch of the host goes through it.
    const machine = options.machine ?? new LocalMachine(env, homeDir, LOCAL_MACHINE_ID, 'This computer', dataDir);
    this.machine = machine;
    const { containers, devContainers } = containersForHost(machine, this.store, log);
    this.machines = Machines.forHost({
      local: machine,
      containers,
      devContainers,
      dataDir,
      env,
      ...(options.ssh ? { ssh: options.ssh } : {}),
      settings: this.store,
      commands: () => this.catalog.adapters().map((adapter) => adapter.command),
      onChange: (view) => this.emit({ name: 'machineChanged', payload: { machine: view } }),
      log,
    });
    const machines = this.machines;
    const machineOf = (conversationId: string): Machine | undefined => machines.openOf(this.store.getSummary(conversationId).machine);
    const installer = new AgentInstaller(
      dataDir,
      env,
      (progress) => this.emit({ name: 'agentInstallProgress', payload: progress }),
      options.agentPackages,
      undefined,
      machine,
    );
    const registry = new AgentRegistry({
      dataDir,
      env,
      setting: () => this.store.getSetting('agents.registryUrl', z.string().nullable(), null) ?? undefined,
      log,
    });
    const catalog = new AgentCatalog(dataDir, env, installer, registry);
    // Asked in the background: the list Baton shipped with (or the last good copy) serves meanwhile.
    void registry.refreshIfDue();
    this.catalog = catalog;
    this.pool = new AgentProcesses(log, machine);
    const access = new AgentAccess(catalog, env, this.pool, homeDir);
    const probe = new AgentProbe(access, this.pool);
    /** The secret values Baton knows (toolbox, the agents' environment): redacted from what is recorded or handed on. */
    const secrets = (): string[] => [...toolbox.secretValues(), ...agentSecrets(env, catalog.adapters())];
    this.launcher = LaunchRegistry.open({ dataDir, launch: bridgeLaunch(env, 'mcpLauncher.js'), secrets, log });
    const sessionFiles = new SessionFolders(machine, log);
    // Built in the order they need each other, nothing reached before it is made: the turns make
    // their live sessions (told of the turns) and listen to the committer for failed writes.
    this.committer = new Committer(this.store, (event) => this.emit(event), secrets);
    this.instructions = new InstructionSettings(this.store, env, dataDir, secrets, machines);
    this.importReview = new ImportReview(this.store, homeDir, machines);
    this.checkpoints = CheckpointStore.open(dataDir, { log, machine });
    this.turnCheckpoints = new TurnCheckpoints(
      this.checkpoints,
      this.store,
      (conversationId, drafts) => this.committer.commit(conversationId, drafts),
      homeDir,
      log,
      undefined,
      machineOf,
    );
    const common = { store: this.store, catalog, access, agentEnv: env, committer: this.committer, instructions: this.instructions };
    const turnParts = { ...common, importReview: this.importReview, pool: this.pool, log };
    const pendingFolders = new PendingFolders();
    const planner = new TurnPlanner({ ...common, pool: this.pool, toolbox, homeDir, launcher: this.launcher, machines, home: machine });
    this.turns = new Turns({
      ...turnParts,
      planner,
      sessions: (turns) =>
        new LiveSessions({
          ...turnParts,
          turns,
          secrets,
          sessionFiles,
          launcher: this.launcher,
          pendingFolders,
          watchFolder: (folder, on) => this.checkpoints.watch(folder, on),
        }),
      checkpoints: this.turnCheckpoints,
      pendingFolders,
      filesOf: (conversationId) => machineOf(conversationId) ?? machine,
    });
    this.sessions = this.turns.sessions;
    this.conversations = new ConversationSettings({
      ...common,
      toolbox,
      liveSession: (conversationId) => this.sessions.get(conversationId),
      onToolboxSet: (conversationId) => this.launcher.revokeScope(conversationId),
      machineId: machine.id,
    });
    // A server changed or removed: no launch id answers it any more.
    toolbox.onServerChange((name) => this.launcher.revokeServer(name));
    this.history = new HistoryService(
      this.store,
      this.committer,
      this.turns,
      this.importReview,
      async (agentId, sessionId) => {
        // An agent that is gone from this machine has nothing to delete here.
        if (access.installed(agentId)) {
          await probe.deleteSession(agentId, sessionId);
        }
      },
      log,
      // A branch shares its original's checkpoints: only those no conversation left uses go.
      (checkpointIds) => {
        const inUse = this.store.checkpointIdsInUse();
        this.checkpoints.remove(checkpointIds.filter((id) => !inUse.has(id)));
      },
      // Its attempts go with it (their conversations and copies); a continued attempt takes its copy.
      async (conversationId) => {
        await this.attempts.beforePurge(conversationId, async (attempt) => {
          await this.history.delete(attempt);
          await this.history.purge(attempt);
        });
        // A branch made in its own copy takes its copy with it.
        await this.branchCopies.beforePurge(conversationId);
      },
    );
    this.attempts = new Attempts({
      store: this.store,
      committer: this.committer,
      checkpoints: this.checkpoints,
      turnCheckpoints: this.turnCheckpoints,
      importReview: this.importReview,
      agentName: (agentId) => catalog.get(agentId).displayName,
      pendingFolders,
      turns: this.turns,
      dataDir,
      machine,
      machines,
      containers,
      log,
    });
    this.rewinds = new Rewinds({
      store: this.store,
      committer: this.committer,
      checkpoints: this.checkpoints,
      turnCheckpoints: this.turnCheckpoints,
      importReview: this.importReview,
      activeTurnId: (conversationId) => this.turns.activeTurnId(conversationId),
      releaseSession: (conversationId) => this.sessions.release(conversationId),
      machineOf,
    });
    this.branchCopies = new BranchCopies({
      store: this.store,
      checkpoints: this.checkpoints,
      rewinds: this.rewinds,
      dataDir,
      machine,
      machines,
      log,
    });
    const always = new AlwaysDecisions(this.store, catalog, this.committer, this.sessions, (machineId) => machines.ready(machineId));
    this.imports = new SessionImport(this.store, this.committer, access, machine);
    this.logins = new LoginTerminals(access, probe, env, (event) => this.emit({ name: 'loginTerminal', payload: event }));
    // agents.json followed as it is written: the list (and its alert) change without a reload.
    let listed = '';
    this.stopAgentsWatch = watchAgentsFile(
      dataDir,
      () => {
        const list = { ...catalog.list(), registry: catalog.registry?.status() ?? null };
        const text = JSON.stringify(list);
        if (text !== listed) {
          listed = text;
          this.emit({ name: 'agentsChanged', payload: list });
        }
      },
      log,
    );
    this.turns.recoverInterrupted();
    this.recovered = Promise.all([
      // Then the containers of copies that are gone (left by a crash) are found, listed for removal.
      this.attempts.recover().then(
        (removed) => containers.findLeftBehind(removed.map((folder) => `removed a copy left by attempts that had ended: ${folder}`)),
        (error: unknown) => log(`could not look for copies left by attempts: ${String(error)}`),
      ),
      this.branchCopies.recover().then(
        (removed) => removed.forEach((folder) => log(`removed a branch copy whose branch was never made: ${folder}`)),
        (error: unknown) => log(`could not look for branch copies left behind: ${String(error)}`),
      ),
    ]).then(() => undefined);
    const parts: HostParts = {
      env,
      homeDir,
      dataDir,
      version: options.version ?? '0.1.0',
      store: this.store,
      committer: this.committer,
      catalog,
      installer,
      probe,
      pool: this.pool,
      logins: this.logins,
      imports: this.imports,
      conversations: this.conversations,
      turns: this.turns,
      planner,
      sessions: this.sessions,
      history: this.history,
      importReview: this.importReview,
      always,
      instructions: this.instructions,
      toolbox,
      serverImports: new ServerImports(toolbox, homeDir, env.APPDATA, machine),
      logFile: options.logFile,
      checkpoints: this.checkpoints,
      machines,
      containers,
      devContainers,
      rewinds: this.rewinds,
      attempts: this.attempts,
      branchCopies: this.branchCopies,
    };
    this.handlers = {
      ...hostHandlers(parts),
      ...agentHandlers(parts),
      ...historyHandlers(parts),
      ...conversationHandlers(parts),
      ...toolboxHandlers(parts),
      ...instructionHandlers(parts),
      ...rewindHandlers(parts),
      ...attemptHandlers(parts),
      ...machineHandlers(parts),
    };
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
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once the start-up look for copies left by ended attempts and branches is done. */
  whenRecovered(): Promise<void> {
    return this.recovered;
  }

  /** Stops every agent; running turns get a moment to record how they ended, and the last streamed text is saved. */
  async stopAgents(): Promise<void> {
    await this.recovered;
    await this.attempts.idle();
    await this.turns.dispose();
    await this.turnCheckpoints.idle();
    await this.sessions.dispose();
    await this.pool.dispose();
    // What ran on other machines has ended with the pool: their servers end too.
    await this.machines.dispose();
    try {
      this.committer.flush();
    } catch (error) {
      this.log(`could not save the last streamed text: ${String(error)}`);
    }
  }

  /** Stops agents and closes the store. */
  async dispose(): Promise<void> {
    this.stopAgentsWatch();
    await this.logins.dispose();
    await this.stopAgents();
    this.listeners.clear();
    await this.launcher.close();
    this.checkpoints.close();
    this.store.close();
    this.lock.release();
  }

  private emit(event: PushEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.log(`a listener failed: ${String(error)}`);
      }
    }
  }

  private async dispatch<M extends Method>(method: M, raw: unknown): Promise<Result<M>> {
    const parsed = requests[method].params.safeParse(raw ?? {});
    if (!parsed.success) {
      throw new InvalidRequestError(
        `Bad parameters for ${method}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`).join('; ')}`,
      );
    }
    const handler = this.handlers[method] as (params: Params<M>) => Result<M> | Promise<Result<M>>;
    const result = await handler(parsed.data as Params<M>);
    return requests[method].result.parse(result) as Result<M>;
  }
}

export { definedEnv };
