/**
 * The FIFO freeze of the trust review, in a real web host (its own process: a frozen host must not
 * take the test runner with it): the fake agent asks to read five FIFOs in its own folder at once.
 * Each read is refused at once ("not a file"), and the page is still served meanwhile.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../e2e/fixtures/agentEnv.js';
import { ensureBuilt } from '../../e2e/fixtures/ensureBuilt.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../e2e/fixtures/fakeAgentConfig.js';
import { connectHostClient, type HostClient } from '../../e2e/fixtures/hostClient.js';
import { until } from '../../e2e/fixtures/until.js';
import { startWebHost, type WebHost } from '../../e2e/fixtures/webHost.js';
import { cookieName } from './WebServer.js';

describe('an agent that opens FIFOs', () => {
  let web: WebHost | undefined;
  let client: HostClient | undefined;

  afterEach(async () => {
    client?.close();
    // A frozen host may not end on SIGTERM: it is killed.
    await web?.kill('SIGKILL');
  });

  it.skipIf(process.platform === 'win32')(
    'gets each read refused at once, and the host keeps serving the page',
    async () => {
      ensureBuilt();
      const dataDir = tempDir('fifo-host');
      registerFakeAgent(dataDir);
      web = await startWebHost(dataDir, { ...process.env, HOME: tempDir('home') });
      client = await connectHostClient(web.url);
      const work = tempDir('fifo-work');
      const fifos = [1, 2, 3, 4, 5].map((index) => path.join(work, `pipe-${index}`));
      execFileSync('mkfifo', fifos);

      const { conversation } = await client.call<{ conversation: { conversationId: string } }>('newConversation', {
        agentId: FAKE_AGENT_ID,
        cwd: work,
      });
      await client.call('sendMessage', { conversationId: conversation.conversationId, text: `read-all:${fifos.join(',')}` });
      // Today's reads come back at once; a frozen host would never report them.
      const reply = await until(
        () => client?.pushed.find((event) => event.type === 'message.chunk' && JSON.stringify(event.payload).includes('Read all')),
        10_000,
      );
      const said = JSON.stringify(reply.payload);
      expect(said.match(/is not a file/g)).toHaveLength(5);

      // The page (a file the host reads) is served while (and after) the agent asked.
      const address = new URL(web.url);
      const page = await fetch(`${address.origin}/`, {
        headers: { cookie: `${cookieName(Number(address.port))}=${address.searchParams.get('token')}` },
        signal: AbortSignal.timeout(5_000),
      });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<');
    },
    60_000,
  );
});
