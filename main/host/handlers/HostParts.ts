/**
 * The parts of a running host that the request handlers use, built once by the composition root
 * (`Host`), and the shape of a group of handlers.
 */
import type { Method, Params, Result } from '../../../app/ipc/index.js';
import type { Env } from '../adapters/AgentAdapter.js';
import type { AgentCatalog } from '../agents/AgentCatalog.js';
import type { AgentInstaller } from '../agents/AgentInstaller.js';
import type { AgentProbe } from '../agents/AgentProbe.js';
import type { Attempts } from '../attempts/Attempts.js';
import type { AttemptContainers } from '../machine/AttemptContainers.js';
import type { DevContainers } from '../machine/DevContainers.js';
import type { BranchCopies } from '../attempts/BranchCopies.js';
import type { LoginTerminals } from '../agents/LoginTerminals.js';
import type { CheckpointStore } from '../checkpoints/CheckpointStore.js';
import type { Rewinds } from '../checkpoints/Rewinds.js';
import type { AlwaysDecisions } from '../conversations/AlwaysDecisions.js';
import type { Committer } from '../conversations/Committer.js';
import type { ConversationSettings } from '../conversations/ConversationSettings.js';
import type { HistoryService } from '../conversations/HistoryService.js';
import type { ImportReview } from '../conversations/ImportReview.js';
import type { LiveSessions } from '../conversations/LiveSessions.js';
import type { SessionImport } from '../conversations/SessionImport.js';
import type { TurnPlanner } from '../conversations/TurnPlanner.js';
import type { Turns } from '../conversations/Turns.js';
import type { InstructionSettings } from '../instructions/InstructionSettings.js';
import type { Machines } from '../machine/Machines.js';
import type { AgentProcesses } from '../pool/AgentProcesses.js';
import type { EventStore } from '../store/EventStore.js';
import type { ServerImports } from '../toolbox/ServerImports.js';
import type { ToolboxCatalog } from '../toolbox/ToolboxCatalog.js';

/** What the handlers are given. */
export type HostParts = {
  env: Env;
  homeDir: string;
  dataDir: string;
  version: string;
  store: EventStore;
  committer: Committer;
  catalog: AgentCatalog;
  installer: AgentInstaller;
  probe: AgentProbe;
  pool: AgentProcesses;
  logins: LoginTerminals;
  imports: SessionImport;
  conversations: ConversationSettings;
  turns: Turns;
  /** Plans turns: the one way a turn's binding request is built (an early session's too). */
  planner: TurnPlanner;
  /** The conversations' live agent sessions. */
  sessions: LiveSessions;
  history: HistoryService;
  importReview: ImportReview;
  always: AlwaysDecisions;
  instructions: InstructionSettings;
  toolbox: ToolboxCatalog;
  serverImports: ServerImports;
  checkpoints: CheckpointStore;
  /** This computer and the machines reached over SSH. */
  machines: Machines;
  /** The containers Baton starts for attempts. */
  containers: AttemptContainers;
  /** The folders opened in their dev containers. */
  devContainers: DevContainers;
  rewinds: Rewinds;
  /** "Ask several agents": attempts, their copies, keeping one. */
  attempts: Attempts;
  branchCopies: BranchCopies;
  /** Baton's log file, where there is one. */
  logFile: string | undefined;
};

/** One handler per method of the contract. */
export type Handlers = { [M in Method]: (params: Params<M>) => Result<M> | Promise<Result<M>> };

/** The handlers of some methods. */
export type HandlerGroup<M extends Method> = Pick<Handlers, M>;
