/**
 * The host side of Baton's MCP launcher (`mcpLauncher.ts`): holds the servers that carry secret
 * values, each under an opaque id, and answers the launcher on a socket in an owner-only folder.
 * An agent that writes its server config on a command line (see `AgentAdapter.exposesServerConfig`)
 * is given the launcher and the id instead: no environment value or header reaches the process list.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import { isSecretName } from '../process/knownSecrets.js';
import { sha256Hex } from '../sha256.js';
import { makeDataFolder, makeDataTempFolder, removeDataPath, setDataMode } from '../store/dataFiles.js';
import { PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from '../store/privateDataDir.js';
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
  return entries.filter(
    ({ name, value }) =>
      value !== '' &&
      (isSecretName(name) ||
        /^authorization$|cookie|api[-_]?key/i.test(name) ||
        secrets.some((secret) => secret.length >= 4 && value.includes(secret))),
  );
}

/** A server granted to one conversation's live session, under its id. */
type Grant = { server: McpServer; scope: string; revoked: boolean };

/**
 * The launcher's registry. An id names one server for one scope (a conversation), is derived from
 * both (so the same binding digests the same), and is answered only while it is granted: from the
 * moment that conversation's session starts until it ends, its toolbox changes, or the server is
 * changed or removed. An answer carries that server's own values only, and is redacted with them.
 */
export class LaunchRegistry {
  private readonly granted = new Map<string, Grant>();
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
  static open(options: {
    dataDir: string;
    launch: BridgeLaunch;
    secrets: () => string[];
    log?: (message: string) => void;
  }): LaunchRegistry {
    let socketPath: string;
    let cleanup: () => void;
    if (process.platform === 'win32') {
      socketPath = `\\\\.\\pipe\\baton-launch-${randomBytes(12).toString('hex')}`;
      cleanup = () => {};
    } else {
      const runDir = path.join(options.dataDir, 'run');
      if (path.join(runDir, 'launch.sock').length <= SOCKET_PATH_LIMIT) {
        makeDataFolder(runDir);
        setDataMode(runDir, PRIVATE_FOLDER_MODE);
        socketPath = path.join(runDir, 'launch.sock');
        removeDataPath(socketPath);
        cleanup = () => removeDataPath(socketPath);
      } else {
        const dir = makeDataTempFolder(os.tmpdir(), 'baton-launch-');
        socketPath = path.join(dir, 'launch.sock');
        cleanup = () => removeDataPath(dir);
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
          setDataMode(socketPath, PRIVATE_FILE_MODE);
        }
        resolve();
      });
    });
    registry.ready.catch((error: unknown) => options.log?.(`Baton's MCP launcher cannot listen on ${socketPath}: ${String(error)}`));
    return registry;
  }

  /**
   * The server as the agent of `scope` is given it: unchanged when it holds no secret, else the
   * launcher and its id. Nothing is granted here (a preview shields too): see {@link grant}.
   */
  shield(server: McpServer, scope: string): McpServer {
    if (!holdsSecrets(server, this.secrets())) {
      return server;
    }
    return {
      name: server.name,
      command: this.launch.command,
      args: [...this.launch.args],
      env: [
        { name: 'BATON_LAUNCH_SOCKET', value: this.socketPath },
        { name: 'BATON_LAUNCH_ID', value: this.idOf(server, scope) },
      ],
    };
  }

  /** Answers the ids of `servers` (as {@link shield} made them for `scope`) until the returned revocation runs. */
  grant(scope: string, servers: readonly McpServer[]): () => void {
    const known = this.secrets();
    const grants = servers
      .filter((server) => holdsSecrets(server, known))
      .map((server) => ({ id: this.idOf(server, scope), grant: { server, scope, revoked: false } }));
    for (const { id, grant } of grants) {
      // A later session of the same conversation takes the id over; the earlier one's revocation leaves it.
      this.granted.set(id, grant);
    }
    return () => {
      for (const { id, grant } of grants) {
        grant.revoked = true;
        if (this.granted.get(id) === grant) {
          this.granted.delete(id);
        }
      }
    };
  }

  /** Revokes every id granted to a scope (its toolbox changed). */
  revokeScope(scope: string): void {
    for (const [id, grant] of this.granted) {
      if (grant.scope === scope) {
        this.revokeId(id);
      }
    }
  }

  /** Revokes every id of the server named `name` (it was changed or removed from the catalog). */
  revokeServer(name: string): void {
    for (const [id, grant] of this.granted) {
      if (grant.server.name.toLowerCase() === name.toLowerCase()) {
        this.revokeId(id);
      }
    }
  }

  /** How many ids are answered now (tests). */
  get grantedCount(): number {
    return this.granted.size;
  }

  /** Stops answering and removes the socket. */
  async close(): Promise<void> {
    this.granted.clear();
    if (this.server.listening) {
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
    this.cleanup();
  }

  private idOf(server: McpServer, scope: string): string {
    return sha256Hex(`${this.salt}\u0000${scope}\u0000${JSON.stringify(server)}`).slice(0, 32);
  }

  private revokeId(id: string): void {
    const grant = this.granted.get(id);
    if (grant) {
      grant.revoked = true;
      this.granted.delete(id);
    }
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
      const server = typeof id === 'string' ? this.granted.get(id)?.server : undefined;
      socket.end(
        JSON.stringify(
          server
            ? { server, redact: ownSecretValues(server, this.secrets()) }
            : {
                error:
                  "Baton gives no server for that id now (its conversation's session ended, its toolbox changed, the server was changed or removed, or Baton was restarted); send the message again",
              },
        ),
      );
    });
  }
}

/**
 * The values of the server's own secret entries, to take out of what it says (for an
 * `Authorization` header, the credential without its scheme too). Never another server's.
 */
function ownSecretValues(server: McpServer, known: readonly string[]): string[] {
  const entries = secretEntries(server, known);
  const values = entries.flatMap(({ name, value }) => (/^authorization$/i.test(name) ? [value, value.replace(/^\S+\s+/, '')] : [value]));
  // A known secret inside one of its own values (an imported `Bearer ${TOKEN}`) is its own too.
  const inside = known.filter((secret) => entries.some(({ value }) => value.includes(secret)));
  return [...new Set([...values, ...inside].filter((value) => value.length >= 8))];
}
