/**
 * The baseline of the turn benchmark: a bare ACP SDK client driving an agent, with nothing of
 * Baton between (no store, no events, no push). Only benchmarks import the SDK outside main/host/acp.
 */
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

/** A started agent with one session. */
export type DirectSession = { prompt(text: string): Promise<void>; close(): void };

/** Spawns `command`, initializes, opens a session in `cwd`. */
export async function startDirect(command: string, args: string[], env: Record<string, string>, cwd: string): Promise<DirectSession> {
  const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
  const connection = acp
    .client({ name: 'bench' })
    .onNotification(acp.methods.client.session.update, () => {})
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'cancelled' } }))
    .connect(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
    );
  await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  return {
    async prompt(text) {
      await connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
    },
    close() {
      connection.close();
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}
