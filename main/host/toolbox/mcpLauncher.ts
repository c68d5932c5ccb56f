/**
 * Baton's MCP launcher: what every agent is given instead of a stdio server or a server holding
 * secrets (see LaunchRegistry). Its environment names only Baton's
 * launch socket (in the owner-only data folder) and an opaque server id:
 *   BATON_LAUNCH_SOCKET   the socket the host answers on
 *   BATON_LAUNCH_ID       the server's id there
 * It asks the host for the server, then runs it: a stdio server as its child, with the secret
 * variables set here; an HTTP or SSE server through the bridge, with its headers. What the server
 * sends back (its answers and its error output) has the secret values taken out before the agent
 * sees it: the server's own, as Baton sent them, and those of the environment the launcher
 * inherited from the agent (it holds them already). Baton never sends another server's values.
 */
import net from 'node:net';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import { startStdioChild } from '../machine/helperChildren.js';
import { agentSecrets } from '../process/knownSecrets.js';
import { redactLine } from './redactLines.js';

const LABEL = 'baton launcher';

function fail(message: string): never {
  process.stderr.write(`${LABEL}: ${message}\n`);
  process.exit(2);
}

/** Asks the host for the server with this id. */
function fetchServer(socketPath: string, id: string): Promise<{ server: McpServer; redact: string[] }> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ id })}\n`));
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        const answer = JSON.parse(text) as { server?: McpServer; redact?: string[]; error?: string };
        if (!answer.server) {
          reject(new Error(answer.error ?? 'the host did not answer'));
          return;
        }
        resolve({ server: answer.server, redact: answer.redact ?? [] });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** Passes a stream on line by line, each line redacted (a secret split across chunks is still whole in its line). */
function passRedacted(from: NodeJS.ReadableStream, to: NodeJS.WritableStream, redact: readonly string[]): void {
  let pending = '';
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    pending += chunk;
    let end = pending.indexOf('\n');
    while (end >= 0) {
      to.write(`${redactLine(pending.slice(0, end), redact)}\n`);
      pending = pending.slice(end + 1);
      end = pending.indexOf('\n');
    }
  });
  from.on('end', () => {
    if (pending !== '') {
      to.write(redactLine(pending, redact));
    }
  });
}

/** Runs a stdio server as a child, passing stdin through and its stdout and stderr back line by line, redacted. */
function runChild(server: Extract<McpServer, { command: string }>, redact: readonly string[]): void {
  const { BATON_LAUNCH_SOCKET: _socket, BATON_LAUNCH_ID: _id, ...inherited } = process.env;
  const child = startStdioChild(server.command, server.args, {
    ...inherited,
    ...Object.fromEntries(server.env.map(({ name, value }) => [name, value])),
  });
  child.on('error', (error) => fail(`could not start "${server.name}": ${error.message}`));
  process.stdin.pipe(child.stdin);
  passRedacted(child.stdout, process.stdout, redact);
  passRedacted(child.stderr, process.stderr, redact);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => child.kill(signal));
  }
}

async function main(): Promise<void> {
  const socketPath = process.env.BATON_LAUNCH_SOCKET;
  const id = process.env.BATON_LAUNCH_ID;
  if (!socketPath || !id) {
    fail('BATON_LAUNCH_SOCKET and BATON_LAUNCH_ID are required');
  }
  let answer: { server: McpServer; redact: string[] };
  try {
    answer = await fetchServer(socketPath, id);
  } catch (error) {
    fail(`could not get the server from Baton (${error instanceof Error ? error.message : String(error)}); is Baton still running?`);
  }
  const { server } = answer;
  const { BATON_LAUNCH_SOCKET: _socket, BATON_LAUNCH_ID: _id, ...inherited } = process.env;
  const redact = [
    ...new Set([
      ...answer.redact,
      ...agentSecrets(
        Object.fromEntries(Object.entries(inherited).filter((entry): entry is [string, string] => entry[1] !== undefined)),
        [],
      ),
    ]),
  ];
  if ('command' in server) {
    runChild(server, redact);
    return;
  }
  // Loaded only for a remote server: a stdio one starts without the MCP SDK.
  const { runBridge } = await import('./bridgeCore.js');
  await runBridge({
    url: server.url,
    kind: server.type,
    headers: Object.fromEntries(server.headers.map(({ name, value }) => [name, value])),
    redact,
    label: LABEL,
  });
}

void main();
