/**
 * One conformance suite, every adapter: the same scenarios against each real agent (pinned in
 * e2e/agents) pointed at the model stub, through the adapter and LiveSession the app uses.
 * Handshake; a streamed turn; a tool call into a stdio MCP server with permission allowed and
 * denied; cancel mid-turn; a session reopened in a fresh process; nothing left running.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentHome,
  agentUnavailable,
  CONFORMANCE_AGENTS,
  everythingServer,
  withSkipReason,
  type ConformanceAgent,
} from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../../../e2e/fixtures/modelStub.js';
import type { EventDraft } from '../../../app/events/index.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import { LiveSession } from '../conversations/LiveSession.js';
import type { LiveSessionOwner } from '../conversations/SessionOwner.js';
import { AgentProcesses } from '../pool/AgentProcesses.js';
import { findExecutable } from '../machine/findExecutable.js';
import { builtinAdapters } from '../agents/AgentCatalog.js';
import { capabilityOf } from '../instructions/deliverInstructions.js';
import { LaunchRegistry } from '../toolbox/LaunchRegistry.js';
import { startMcpHttpServer } from '../../../e2e/fixtures/mcpHttpServer.js';
import { fileURLToPath } from 'node:url';

const TURN_TIMEOUT = 90_000;

/**
 * How each agent reopens a session in a new process (measured; see shared/AGENTS-OFFLINE.md).
 * Agents that offer both resume and load may be reopened by load when a resume fails. Gemini
 * 0.61 has its session file written by the time the turn ends (measured; waiting longer before
 * ending it changes nothing), yet its session/load mostly fails with "Internal error (No previous
 * sessions found for this project.)", its own lookup; then a new session is started, and the
 * reason is logged. A fresh-clone CI run once saw the load work, so both are accepted, and either
 * way the history check below matches.
 */
const REOPENS: Record<ConformanceAgent, ReadonlyArray<'resume' | 'load' | 'new'>> = {
  claude: ['resume', 'load'],
  codex: ['resume', 'load'],
  gemini: ['new', 'load'],
  qwen: ['resume', 'load'],
  opencode: ['resume', 'load'],
  pi: ['load'],
};

/** Where each agent's instructions go once it has answered `initialize` (the standard first, then its own channels). */
const CHANNELS: Record<ConformanceAgent, { append: string; replace: string }> = {
  claude: { append: 'standard', replace: 'standard' },
  codex: { append: 'standard', replace: 'own' },
  gemini: { append: 'none', replace: 'own' },
  qwen: { append: 'own', replace: 'own' },
  opencode: { append: 'own', replace: 'own' },
  pi: { append: 'own', replace: 'own' },
};

/** Agents whose new sessions start, on their own, in a mode where they decide without asking (measured). */
const STARTS_SELF_APPROVING: readonly ConformanceAgent[] = ['claude', 'codex', 'qwen'];

/** Agents given an HTTP server too in the process-list check (those that advertise HTTP). */
const CHANNELS_HTTP: readonly ConformanceAgent[] = ['claude', 'codex', 'qwen', 'gemini', 'opencode'];

/** Every process's full command line on this machine. */
function commandLines(): string[] {
  return execFileSync('ps', ['-ww', '-eo', 'args='], { encoding: 'utf8' }).split('\n');
}

/** A file of the built host (the launcher runs as its own process). */
function builtFile(name: string): string {
  return fileURLToPath(new URL(`../../../dist/main/host/toolbox/${name}`, import.meta.url));
}

/** A stand-in for the conversation: records drafts and answers permission questions by policy. */
class Recorder {
  drafts: EventDraft[] = [];
  turnId = 'turn-1';
  policy: 'allow' | 'reject' = 'allow';
  live: LiveSession | undefined;
  readonly owner: LiveSessionOwner = {
    commit: (drafts) => {
      this.drafts.push(...drafts);
      for (const draft of drafts) {
        if (draft.type === 'permission.requested') {
          const option =
            draft.payload.options.find((candidate) => candidate.kind === (this.policy === 'allow' ? 'allow_once' : 'reject_once')) ??
            draft.payload.options.find((candidate) => candidate.kind.startsWith(this.policy));
          setTimeout(() => this.live?.answer(draft.payload.requestId, option?.optionId ?? ''), 10);
        }
      }
    },
    activeTurnId: () => this.turnId,
    onExit: () => {},
    log: (message) => this.logs.push(message),
  };
  logs: string[] = [];

  text(): string {
    return this.drafts.flatMap((draft) => (draft.type === 'message.chunk' ? [draft.payload.text] : [])).join('');
  }

  types(): string[] {
    return this.drafts.map((draft) => draft.type);
  }
}

/** Live processes of a group; zombies (state Z) have ended and only wait for this machine's init to reap them. */
function processesInGroup(pgid: number): string[] {
  return execFileSync('ps', ['-eo', 'pgid=,pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => {
      const [group, , stat] = line.trim().split(/\s+/);
      return group === String(pgid) && !stat?.startsWith('Z');
    });
}

describe.each(CONFORMANCE_AGENTS)('%s', (agent) => {
  const skip = agentUnavailable(agent);
  let stub: ModelStub;
  const adapter = builtinAdapters.find((candidate) => candidate.agentId === agent)!;
  const opened: LiveSession[] = [];
  /** One pool per agent, as the host has: sessions of one launch share a process. */
  let pool: AgentProcesses;
  /**
   * One private HOME for the scenarios that need no process of their own: their sessions share one
   * process, as a host's conversations do (a real agent's start is the suite's largest cost: OpenCode's
   * takes several seconds of CPU). Two sessions at once join it too; a scenario that ends its process or looks at its
   * command line (the launcher, a reopen, dispose) makes its own.
   */
  let sharedEnv: Record<string, string> | undefined;
  const shared = (): { env: Record<string, string> } => ({ env: (sharedEnv ??= agentHome(agent, stub.url)) });

  beforeAll(async () => {
    if (skip) {
      console.log(skip);
    }
    stub = await startModelStub();
    pool = new AgentProcesses();
  });
  afterAll(async () => {
    await Promise.all(opened.map((live) => live.dispose()));
    await pool.dispose();
    await stub.close();
  });

  /** Opens a session; a fresh environment (private HOME) means a process of its own. */
  async function open(
    options: {
      env?: Record<string, string>;
      cwd?: string;
      mcpServers?: McpServer[];
      previousSessionId?: string;
      pool?: AgentProcesses;
      shield?: (server: McpServer) => McpServer;
    } = {},
  ) {
    const recorder = new Recorder();
    const env = options.env ?? agentHome(agent, stub.url);
    const executable = findExecutable(adapter.command, env)!;
    const cwd = options.cwd ?? tempDir(`${agent}-work`);
    const live = await LiveSession.open(
      {
        adapter,
        executable,
        baseEnv: env,
        cwd,
        mcpServers: options.mcpServers ?? [],
        ...(options.shield ? { shield: options.shield } : {}),
      },
      { pool: options.pool ?? pool, owner: recorder.owner },
    );
    opened.push(live);
    recorder.live = live;
    const drafts = await live.bind(options.previousSessionId ? { sessionId: options.previousSessionId } : undefined);
    recorder.drafts.push(...drafts);
    live.start();
    const bound = drafts[0]!;
    return { live, recorder, env, bound, binding: live.binding, drafts };
  }

  it.skipIf(skip)(
    withSkipReason('handshake and one streamed turn', skip),
    async () => {
      const { live, recorder, bound } = await open(shared());
      expect(live.initialized.protocolVersion).toBe(1);
      expect(bound).toMatchObject({ type: 'session.bound', payload: { how: 'new' } });
      const { stopReason } = await live.prompt('Hello from the conformance suite');
      expect(stopReason).toBe('end_turn');
      expect(recorder.text()).toContain('Stub reply: you said');
      expect(recorder.text()).toContain('Hello from the conformance suite');
      expect(stub.modelRequests().some((request) => request.lastUserText.includes('Hello from the conformance suite'))).toBe(true);
    },
    TURN_TIMEOUT,
  );

  const everything: McpServer = { name: 'everything', command: everythingServer.command, args: everythingServer.args, env: [] };

  it.skipIf(skip)(
    withSkipReason('initialize: the pinned version, and the channels Baton picks for append and replace', skip),
    async () => {
      const { live } = await open(shared());
      const pinned = adapter.npmPackages?.[0]?.split('@').at(-1);
      expect(live.initialized.agentInfo?.version).toBe(pinned);
      const channels = capabilityOf(adapter, live.initialized);
      const kinds = {
        append: channels.append ? (channels.append.standard ? 'standard' : 'own') : 'none',
        replace: channels.replace ? (channels.replace.standard ? 'standard' : 'own') : 'none',
      };
      expect(kinds).toEqual(CHANNELS[agent]);
    },
    TURN_TIMEOUT,
  );

  it.skipIf(skip)(
    withSkipReason('a new session starts in a mode that asks the person', skip),
    async () => {
      const { drafts } = await open(shared());
      const options = drafts.find((draft) => draft.type === 'session.options');
      const mode = options?.type === 'session.options' ? options.payload.options.find((option) => option.category === 'mode') : undefined;
      if (!adapter.modes) {
        expect(mode === undefined || mode.options.every((value) => !value.selfApproving)).toBe(true);
        return;
      }
      expect(mode?.currentValue).toBe(adapter.modes.asking);
      // Where the agent started on its own in a mode that decides without asking, the transcript says Baton set it back.
      const noticed = drafts.some((draft) => draft.type === 'notice' && draft.payload.text.includes('decides without asking you'));
      expect(noticed).toBe(STARTS_SELF_APPROVING.includes(agent));
    },
    TURN_TIMEOUT,
  );

  it.skipIf(skip)(
    withSkipReason(
      'two sessions at once share one process (one each where the agent cannot carry two), and each gets its own answer',
      skip,
    ),
    async () => {
      // Opened together on the shared launch: whether its process already runs or not, both join one (where the agent carries two).
      const [first, second] = await Promise.all([open(shared()), open(shared())]);
      const apart = adapter.processPerSession?.(first.live.initialized.agentInfo?.version) === true;
      expect(first.live.processGroupId === second.live.processGroupId).toBe(!apart);
      const [a, b] = await Promise.all([
        first.live.prompt('First conversation says ALPHA'),
        second.live.prompt('Second conversation says BRAVO'),
      ]);
      expect([a.stopReason, b.stopReason]).toEqual(['end_turn', 'end_turn']);
      expect(first.recorder.text()).toContain('ALPHA');
      expect(first.recorder.text()).not.toContain('BRAVO');
      expect(second.recorder.text()).toContain('BRAVO');
      expect(second.recorder.text()).not.toContain('ALPHA');
    },
    TURN_TIMEOUT,
  );

  // Scenarios that do not apply to an agent are not registered for it (not applying is not a skip).
  if (adapter.takesMcpServers !== false) {
    it.skipIf(skip)(
      withSkipReason('a tool call into a stdio MCP server, with permission allowed', skip),
      async () => {
        const { live, recorder } = await open({ ...shared(), mcpServers: [everything] });
        recorder.policy = 'allow';
        const { stopReason } = await live.prompt('Please call the echo tool [tool:echo]');
        expect(stopReason).toBe('end_turn');
        expect(recorder.types()).toContain('tool.call');
        expect(recorder.text()).toContain('Echo: hello from baton');
        const asked = recorder.drafts.filter((draft) => draft.type === 'permission.requested');
        // Whether an agent asks before an MCP tool is its own policy, recorded on its adapter (and its card).
        expect(asked.length > 0).toBe(adapter.asksBeforeMcpTools === true);
        expect(recorder.drafts.filter((draft) => draft.type === 'permission.decided')).toHaveLength(asked.length);
      },
      TURN_TIMEOUT,
    );
  }

  if (adapter.takesMcpServers !== false) {
    it.skipIf(skip)(
      withSkipReason('server secrets and the process list: measured, and kept off it through the launcher', skip),
      async () => {
        const marker = `BATONSECRET${agent.toUpperCase()}MARKER`;
        const secretServer: McpServer = { ...everything, env: [{ name: 'LOC_TOKEN', value: marker }] };
        const http = await startMcpHttpServer();
        const httpServer: McpServer = {
          type: 'http',
          name: 'feed',
          url: http.httpUrl,
          headers: [{ name: 'Authorization', value: `Bearer ${marker}H` }],
        };
        const launcher = LaunchRegistry.open({
          dataDir: tempDir(`${agent}-launcher`),
          launch: { command: process.execPath, args: [builtFile('mcpLauncher.js')] },
          secrets: () => [marker, `${marker}H`],
        });
        try {
          const servers = (): McpServer[] => [secretServer, ...(CHANNELS_HTTP.includes(agent) ? [httpServer] : [])];
          const exposed = async (shield?: (server: McpServer) => McpServer): Promise<boolean> => {
            const { live, recorder } = await open({ mcpServers: servers(), ...(shield ? { shield } : {}) });
            recorder.policy = 'allow';
            await live.prompt('Please call the echo tool [tool:echo]');
            const seen = commandLines().some((line) => line.includes(marker));
            expect(recorder.text()).toContain('Echo: hello from baton');
            await live.dispose();
            return seen;
          };
          // Measured without the launcher: only agents marked as exposing their server config put it on a command line.
          expect(await exposed()).toBe(adapter.exposesServerConfig === true);
          await launcher.ready;
          // Granted as a session would be: the launcher answers its ids only while it lives.
          const revoke = launcher.grant('conformance', servers());
          try {
            expect(await exposed((server) => launcher.shield(server, 'conformance'))).toBe(false);
          } finally {
            revoke();
          }
        } finally {
          await launcher.close();
          await http.close();
        }
      },
      TURN_TIMEOUT,
    );
  }

  if (adapter.asksBeforeMcpTools === true) {
    it.skipIf(skip)(
      withSkipReason('a tool call the person denies does not run', skip),
      async () => {
        const { live, recorder } = await open({ ...shared(), mcpServers: [everything] });
        recorder.policy = 'reject';
        await live.prompt('Please call the echo tool [tool:echo]');
        expect(recorder.types()).toContain('permission.requested');
        expect(recorder.text()).not.toContain('Echo: hello from baton');
        expect(stub.modelRequests().at(-1)?.toolResult ?? '').not.toContain('Echo: hello from baton');
      },
      TURN_TIMEOUT,
    );
  }

  if (adapter.takesMcpServers === false) {
    it.skipIf(skip)(withSkipReason('refuses MCP servers it would ignore', skip), async () => {
      await expect(open({ mcpServers: [everything] })).rejects.toMatchObject({ code: 'UnsupportedInput' });
    });
  }

  it.skipIf(skip)(
    withSkipReason('cancel mid-turn ends the turn as cancelled', skip),
    async () => {
      const { live, recorder } = await open(shared());
      const turn = live.prompt('Stream slowly please [slow]');
      for (let waited = 0; !recorder.text().includes('word3') && waited < 30_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(recorder.text()).toContain('word3');
      await live.cancel();
      expect((await turn).stopReason).toBe('cancelled');
      expect(recorder.text()).not.toContain('word199');
    },
    TURN_TIMEOUT,
  );

  it.skipIf(skip)(
    withSkipReason(
      'a session reopened in a fresh process carries its history, or says it cannot; the process disposed before leaves none behind',
      skip,
    ),
    async () => {
      // With a tool server, so that its process is among those that must end.
      const first = await open({ mcpServers: adapter.takesMcpServers === false ? [] : [everything] });
      await first.live.prompt('Remember the word pomegranate');
      const sessionId = first.bound.type === 'session.bound' ? first.bound.payload.sessionId : '';
      const group = first.live.processGroupId!;
      expect(processesInGroup(group).length).toBeGreaterThan(0);
      await first.live.dispose();
      // The kill is delivered; the kernel may take a moment to finish the last exits.
      await expect.poll(() => processesInGroup(group), { timeout: 10_000 }).toEqual([]);
      const second = await open({ env: first.env, cwd: first.binding.cwd, previousSessionId: sessionId });
      const how = second.bound.type === 'session.bound' ? second.bound.payload.how : undefined;
      await second.live.prompt('Which word did I ask you to remember?');
      const last = stub
        .modelRequests()
        .filter((request) => request.lastUserText.includes('Which word did I ask you to remember?'))
        .at(-1);
      // An agent that cannot reopen (Gemini, whose own lookup fails) gets a new session; the conversation service hands it the conversation
      // and says so.
      expect(REOPENS[agent], `reopened by ${how}; ${second.recorder.logs.join('\n')}`).toContain(how);
      if (how === 'new') {
        // Not silently: the log says the session could not be reopened, and the agent's own reason.
        expect(second.recorder.logs.join('\n')).toMatch(new RegExp(`could not load session ${sessionId}: .+\\(.+\\)`));
      }
      expect(last?.userTexts.some((text) => text.includes('pomegranate'))).toBe(how !== 'new');
    },
    TURN_TIMEOUT,
  );
});
