/**
 * Secret values of the toolbox never rest in the clear: while a real agent runs with a server
 * that carries a marker secret (an environment variable of a stdio server, a header of an HTTP
 * one), the marker is in no byte of the database, its WAL, the log, an export, or any process's
 * command line. It reaches only the server it belongs to.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentHome, agentUnavailable, everythingServer, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { dataFolderBytes } from '../../../e2e/fixtures/dataFiles.js';
import { startMcpHttpServer } from '../../../e2e/fixtures/mcpHttpServer.js';
import { startModelStub } from '../../../e2e/fixtures/modelStub.js';
import { Host } from '../Host.js';

const MARKER = 'S3CRET-MARKER-9f2c71';

/** Every process's command line on this machine (Linux /proc). */
function commandLines(): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        return [readFileSync(`/proc/${entry}/cmdline`, 'latin1')];
      } catch {
        return [];
      }
    });
}

describe('toolbox secrets', () => {
  const skip = agentUnavailable('claude') ?? (process.platform === 'linux' ? undefined : 'skipped: reads command lines from Linux /proc');
  it.skipIf(skip)(
    withSkipReason('appear in no database byte, WAL, log, export or command line while a session runs', skip),
    async () => {
      const stub = await startModelStub();
      const lookup = await startMcpHttpServer({ token: MARKER });
      const dataDir = tempDir('secrets');
      const log: string[] = [];
      const host = new Host({ dataDir, env: agentHome('claude', stub.url), log: (line) => log.push(line) });
      try {
        const stdio = host.toolbox.addServer({
          name: 'everything',
          transport: 'stdio',
          command: everythingServer.command,
          args: everythingServer.args,
          env: [{ name: 'EVERYTHING_API_KEY', value: MARKER, secret: true }],
        });
        const http = host.toolbox.addServer({
          name: 'weblookup',
          transport: 'http',
          url: lookup.httpUrl,
          headers: [{ name: 'Authorization', value: `Bearer ${MARKER}`, secret: true }],
        });
        expect(JSON.stringify(host.toolbox.listServers())).not.toContain(MARKER);
        const { conversationId } = host.conversations.create('claude', tempDir('secrets-work'), '', undefined, [
          stdio.serverId,
          http.serverId,
        ]);
        const { turnId } = await host.turns.send(conversationId, 'hello with secrets around');
        // While the agent and its servers run.
        await expect
          .poll(() => host.store.readEvents(conversationId).events.some((event) => event.type === 'turn.running'), { timeout: 60_000 })
          .toBe(true);
        const during = commandLines();
        await host.turns.idle();
        expect(
          host.store.readEvents(conversationId).events.find((event) => event.type === 'turn.ended' && event.payload.turnId === turnId),
        ).toMatchObject({ payload: { outcome: 'completed' } });
        expect(during.filter((line) => line.includes(MARKER))).toEqual([]);
        expect(commandLines().filter((line) => line.includes(MARKER))).toEqual([]);
        // The HTTP server got its header: the secret reached where it belongs.
        expect(lookup.authorizations).toContain(`Bearer ${MARKER}`);

        for (const format of ['markdown', 'jsonl'] as const) {
          expect(host.history.export(conversationId, format).content).not.toContain(MARKER);
        }
        expect(log.join('\n')).not.toContain(MARKER);
        expect(dataFolderBytes(dataDir)).not.toContain(MARKER);
      } finally {
        await host.dispose();
        await lookup.close();
        await stub.close();
      }
      // After the WAL is folded into the file, still nothing.
      expect(dataFolderBytes(dataDir)).not.toContain(MARKER);
    },
    120_000,
  );
});
