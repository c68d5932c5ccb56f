/**
 * The agent outside a conversation, built from its parts with the fake agent in real processes:
 * the probe's card (asked once, asked again once forgotten), logging in and out on a loan of the
 * process (a method it does not offer, or one that runs in a terminal, refused plainly), and a
 * terminal log-in: its output and exit reported, the typed token taken, a second one at once refused.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, fakeAgentProcesses, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { until } from '../../../e2e/fixtures/until.js';
import { definedEnv } from '../Host.js';
import { AgentProcesses } from '../pool/AgentProcesses.js';
import { ptyProgram } from '../process/pty.js';
import { AgentAccess } from './AgentAccess.js';
import { AgentCatalog } from './AgentCatalog.js';
import { AgentProbe } from './AgentProbe.js';
import { LoginTerminals, type LoginTerminalEvent } from './LoginTerminals.js';

describe('the probe and the log-ins', () => {
  let dataDir: string;
  let pool: AgentProcesses;
  let probe: AgentProbe;
  let logins: LoginTerminals;
  let events: LoginTerminalEvent[];

  beforeEach(() => {
    dataDir = tempDir('probe');
    registerFakeAgent(dataDir, { requireAuth: true });
    const env = definedEnv(process.env);
    pool = new AgentProcesses();
    const access = new AgentAccess(new AgentCatalog(dataDir, env), env, pool, tempDir('probe-home'));
    probe = new AgentProbe(access, pool);
    events = [];
    logins = new LoginTerminals(access, probe, env, (event) => events.push(event));
  });
  afterEach(async () => {
    await logins.dispose();
    await pool.dispose();
    await until(() => fakeAgentProcesses(dataDir).length === 0, 5_000);
  });

  /** Whether the fake agent keeps a log-in (its own file says so). */
  const loggedIn = (): boolean => existsSync(path.join(dataDir, 'fake-agent-logged-in'));

  it('describes the agent from its own answers, once, and again once forgotten (by a process started afresh); one process waits for the next use', async () => {
    const card = await probe.describe(FAKE_AGENT_ID);
    expect(card).toMatchObject({ agentId: FAKE_AGENT_ID, implementation: 'fake-agent 1.0.0', sessions: { load: false } });
    expect(await probe.describe(FAKE_AGENT_ID)).toBe(card);
    probe.forget(FAKE_AGENT_ID);
    const again = await probe.describe(FAKE_AGENT_ID);
    expect(again).not.toBe(card);
    expect(again).toEqual(card);
    // The forgotten card's process was ended; the new one waits a while for the next use (the pool's end ends it).
    await until(() => fakeAgentProcesses(dataDir).length === 1, 5_000);
  });

  it('logs in with a method the agent offers, refuses one it does not and one that runs in a terminal, and logs out', async () => {
    await expect(probe.authenticate(FAKE_AGENT_ID, 'carrier-pigeon')).rejects.toThrow('Fake offers no log-in method "carrier-pigeon".');
    await expect(probe.authenticate(FAKE_AGENT_ID, 'login-shell')).rejects.toThrow(
      `Fake's log-in method "Terminal login" runs in a terminal: start it with startLoginTerminal.`,
    );
    expect(loggedIn()).toBe(false);
    await probe.authenticate(FAKE_AGENT_ID, 'token');
    expect(loggedIn()).toBe(true);
    await probe.logout(FAKE_AGENT_ID);
    expect(loggedIn()).toBe(false);
    // Logging in and out used one process, which waits a while for the next use.
    expect(fakeAgentProcesses(dataDir)).toHaveLength(1);
  });

  const noPty = ptyProgram(definedEnv(process.env)) === undefined;
  it.skipIf(noPty)(
    `a terminal log-in reports what it shows and how it ended, takes what is typed, and only one runs at a time${noPty ? ' (skipped: this system has no `script` command for a pseudo-terminal)' : ''}`,
    async () => {
      expect(logins.supported).toBe(true);
      await expect(logins.start(FAKE_AGENT_ID, 'token', { cols: 100, rows: 30 })).rejects.toThrow(
        'Fake offers no terminal log-in method "token".',
      );
      const terminalId = await logins.start(FAKE_AGENT_ID, 'login-shell', { cols: 100, rows: 30 });
      await until(() => events.some((event) => event.data?.includes('Paste your token:')), 10_000);
      // The size asked for reached the terminal.
      expect(events.map((event) => event.data ?? '').join('')).toContain('Fake agent log-in (100x30)');
      await expect(logins.start(FAKE_AGENT_ID, 'login-shell', { cols: 80, rows: 24 })).rejects.toThrow('A log-in to Fake is already open.');
      logins.input(terminalId, 'secret\r');
      await until(() => events.some((event) => event.exit !== undefined), 10_000);
      expect(events.find((event) => event.exit)?.exit).toEqual({ code: 0, signal: null });
      expect(events.map((event) => event.data ?? '').join('')).toContain('Logged in as tester.');
      expect(() => logins.input(terminalId, 'x')).toThrow(`No log-in terminal with id ${terminalId}.`);
      expect(loggedIn()).toBe(true);
    },
  );

  it.skipIf(noPty)(`closing a terminal log-in that still waits ends it${noPty ? ' (skipped: no `script` command)' : ''}`, async () => {
    const terminalId = await logins.start(FAKE_AGENT_ID, 'login-shell', { cols: 80, rows: 24 });
    await until(() => events.some((event) => event.data?.includes('Paste your token:')), 10_000);
    await logins.close(terminalId);
    await until(() => events.some((event) => event.exit !== undefined), 10_000);
    expect(events.find((event) => event.exit)?.exit?.code).not.toBe(0);
  });
});
