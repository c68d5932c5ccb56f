/**
 * Log out is offered only for a log-in the agent says it can end. The pinned Claude Code, given an
 * API key in its environment (as in the tests), says so (`_auth/status_update`: api_key from
 * ANTHROPIC_API_KEY): its card offers no Log out and a log-out is refused with why. The fake agent,
 * which says nothing of its log-in, keeps Log out as it advertises it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { agentHome, agentUnavailable, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { startModelStub, type ModelStub } from '../../../e2e/fixtures/modelStub.js';
import { Host, definedEnv } from '../Host.js';
import { authStatusParams } from '../acp/authStatus.js';

const skip = agentUnavailable('claude');
let host: Host | undefined;
let stub: ModelStub | undefined;

afterEach(async () => {
  await host?.dispose();
  host = undefined;
  await stub?.close();
  stub = undefined;
});

describe('logging out', () => {
  it.skipIf(skip)(
    withSkipReason('Claude with a key from the environment: no Log out, and a log-out is refused naming the key', skip),
    async () => {
      stub = await startModelStub();
      host = new Host({ dataDir: tempDir('logout-claude-data'), env: agentHome('claude', stub.url) });
      const described = await host.handle('describeAgent', { agentId: 'claude' });
      expect(described.ok, JSON.stringify(described)).toBe(true);
      const { card } = (described.ok ? described.result : { card: {} }) as { card: { logout?: boolean; signedIn?: unknown } };
      expect(card.signedIn).toEqual({ kind: 'api_key', label: 'Anthropic API key', detail: 'ANTHROPIC_API_KEY' });
      expect(card.logout).toBe(false);
      const refused = await host.handle('logoutAgent', { agentId: 'claude' });
      expect(refused).toMatchObject({ ok: false, error: { code: 'UnsupportedInput' } });
      expect(JSON.stringify(refused)).toContain('the Anthropic API key from ANTHROPIC_API_KEY, which logging out cannot end');
    },
  );

  it('an agent that says nothing of its log-in keeps the Log out it advertises', async () => {
    const dataDir = tempDir('logout-fake-data');
    registerFakeAgent(dataDir, { requireAuth: true });
    host = new Host({ dataDir, env: definedEnv(process.env) });
    const described = await host.handle('describeAgent', { agentId: FAKE_AGENT_ID });
    expect(described).toMatchObject({ ok: true, result: { card: { logout: true } } });
    expect(described.ok && 'signedIn' in (described.result as { card: object }).card).toBe(false);
  });

  it("reads an account's e-mail as the detail, and ignores what else the status carries", () => {
    expect(
      authStatusParams.parse({
        authStatus: { kind: 'account', label: 'Claude Max', account: { plan: 'max', email: 'a@example.com' }, vendor: 'x' },
      }),
    ).toEqual({
      authStatus: { kind: 'account', label: 'Claude Max', detail: 'a@example.com' },
    });
  });
});
