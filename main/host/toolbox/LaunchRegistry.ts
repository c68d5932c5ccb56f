/**
 * The host side of Baton's MCP launcher (`mcpLauncher.ts`): holds the servers that carry secret
 * values, each under an opaque id, and answers the launcher on a socket in an owner-only folder.
 * An agent that writes its server config on a command line (see `AgentAdapter.exposesServerConfig`)
 * is given the launcher and the id instead: no environment value or header reaches the process list.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import { isSecretName } from '../instructions/knownSecrets.js';
import { sha256Hex } from '../sha256.js';
import type { BridgeLaunch } from './ToolboxCatalog.js';

/** Unix socket paths longer than this do not fit in `sun_path` on every platform. */
const SOCKET_PATH_LIMIT = 100;

/** True when a server carries a value Baton keeps secret (or one whose name says it is one). */
export function holdsSecrets(server: McpServer, secrets: readonly string[]): boolean {
  return secretEntries(server, secrets).length > 0;
}

/** The server's environment values or headers that are secret: by name, or because Baton keeps them secret. */
function secretEntries(server: McpServer, secrets: readonly string[]): Array<{ name: string; value: string }> {
  const entries = 'command' in server ? server.env : server.headers;
  return entries.filter(({ name, value }) => value !== '' && (isSecretName(name) || /^authorization$|cookie|api[-_]?key/i.test(name) || secrets.some((secret) => secret.length >= 4 && value.includes(secret))));
}

/** The launcher's registry. */
export class LaunchRegistry {
  private readonly servers = new Map<string, McpServer>();
  private readonly salt = randomBytes(16).toString('hex');

  private constructor(
    private readonly server: net.Server,
    readonly socketPath: string,
    private readonly cleanup: () => void,
    private readonly launch: BridgeLaunch,
    private readonly secrets: () => string[],
  ) {}

  /** Whether the socket listens (it is in use only once an agent starts a shielded server, long after). */
  ready: Promise<void> = Promise.resolve();

  /** Listens in `<dataDir>/run` (or a private temp folder when that path is too long for a socket). */
  static open(options: { dataDir: string; launch: BridgeLaunch; secrets: () => string[]; log?: (message: string) => void }): LaunchRegistry {
    let socketPath: string;
    let cleanup: () => void;
    if (process.platform === 'win32') {
      socketPath = `\\\\.\\pipe\\baton-launch-${randomBytes(12).toString('hex')}`;
      cleanup = () => {};
    } else {
      const runDir = path.join(options.dataDir, 'run');
      if (path.join(runDir, 'launch.sock').length <= SOCKET_PATH_LIMIT) {
        mkdirSync(runDir, { recursive: true, mode: 0o700 });
        chmodSync(runDir, 0o700);
        socketPath = path.join(runDir, 'launch.sock');
        rmSync(socketPath, { force: true });
        cleanup = () => rmSync(socketPath, { force: true });
      } else {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'baton-launch-'));
        chmodSync(dir, 0o700);
        socketPath = path.join(dir, 'launch.sock');
        cleanup = () => rmSync(dir, { recursive: true, force: true });
      }
    }
    const holder: { registry?: LaunchRegistry } = {};
    const server = net.createServer((socket) => holder.registry?.answer(socket));
    const registry = new LaunchRegistry(server, socketPath, cleanup, options.launch, options.secrets);
    holder.registry = registry;
    registry.ready = new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        if (process.platform !== 'win32') {
          chmodSync(socketPath, 0o600);
        }
        resolve();
      });
    });
    registry.ready.catch((error: unknown) => options.log?.(`Baton's MCP launcher cannot listen on ${socketPath}: ${String(error)}`));
    return registry;
  }

  /** The server as the agent is given it: unchanged when it holds no secret, else the launcher and its id. */
  shield(server: McpServer): McpServer {
    if (!holdsSecrets(server, this.secrets())) {
      return server;
    }
    const id = sha256Hex(`${this.salt}\u0000${JSON.stringify(server)}`).slice(0, 32);
    this.servers.set(id, server);
    return {
      name: server.name,
      command: this.launch.command,
      args: [...this.launch.args],
      env: [
        { name: 'BATON_LAUNCH_SOCKET', value: this.socketPath },
        { name: 'BATON_LAUNCH_ID', value: id },
      ],
    };
  }

  /** Stops answering and removes the socket. */
  async close(): Promise<void> {
    if (this.server.listening) {
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
    this.cleanup();
  }

  private answer(socket: net.Socket): void {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 4096) {
        socket.destroy();
        return;
      }
      const end = text.indexOf('\n');
      if (end < 0) {
        return;
      }
      let id: unknown;
      try {
        id = (JSON.parse(text.slice(0, end)) as { id?: unknown }).id;
      } catch {
        id = undefined;
      }
      const server = typeof id === 'string' ? this.servers.get(id) : undefined;
      const known = this.secrets();
      const own = server ? secretEntries(server, known).flatMap(({ name, value }) => (known.some((secret) => value.includes(secret)) ? [] : [/^authorization$/i.test(name) ? value.replace(/^\S+\s+/, '') : value])) : [];
      const redact = [...new Set([...known, ...own.filter((value) => value.length >= 8)])];
      socket.end(JSON.stringify(server ? { server, redact } : { error: 'Baton knows no server by that id (it was restarted since); start the conversation again' }));
    });
  }
}
