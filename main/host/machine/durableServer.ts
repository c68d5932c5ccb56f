/**
 * The machine server that outlives its connection (an SSH machine's): a daemon on the remote holds
 * the processes, watches and everything they said, and a small relay run over each ssh channel
 * joins the channel to it. When the channel drops (the ssh process killed, a laptop asleep, a
 * network change), the daemon and its agents go on; what they say meanwhile is kept, numbered,
 * and sent once the next relay attaches (`resumable.ts`). Each Baton host is a session of its
 * own; a session's processes end when its host says so (the `shutdown` note) or after an idle
 * limit with no client, and the daemon ends with its last session.
 *
 * It listens on no TCP port: on a socket `server.sock` in its run folder, the folder 0700 and the
 * socket 0600, so another user of the machine cannot attach. Paths are used relative to the run
 * folder (a socket's path has a short length limit).
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import { definedEnv } from '../process/env.js';
import { LocalMachine } from './LocalMachine.js';
import { MachineServer } from './MachineServer.js';
import { ResumableEnd } from './resumable.js';

/** The socket's name in the run folder. */
const SOCKET = 'server.sock';
/** Where the daemon writes what it has to say (its stdout and stderr). */
const LOG = 'daemon.log';
/** How long a relay waits for a daemon it started to listen. */
const DAEMON_START_MS = 10_000;

/** One host's session with the daemon: its server (its processes and watches), its link, its client if one is attached. */
type Session = { server: MachineServer; end: ResumableEnd; client: Socket | undefined; idle: NodeJS.Timeout | undefined };

/**
 * The environment the server gives what it runs: its own, and, when it runs on the Node Baton
 * uploaded (`~/.baton/node/`, because the machine had none that would do), that Node first on the
 * PATH, for agents and tools that run `node` (most of those from npm do).
 */
export function serverEnv(env: NodeJS.ProcessEnv, execPath: string, home: string): Record<string, string> {
  const defined = definedEnv(env);
  if (!execPath.startsWith(path.join(home, '.baton', 'node') + path.sep)) {
    return defined;
  }
  return { ...defined, PATH: [path.dirname(execPath), defined.PATH].filter(Boolean).join(path.delimiter) };
}

/**
 * Runs the daemon in `runDir`. Each Baton host is a session of its own (several hosts, or a host
 * and a newer one after a restart, do not take each other's processes). A session ends when its
 * host says so, or after `idleMs` with no client; the daemon ends with its last session.
 */
export function runDaemon(runDir: string, idleMs: number): void {
  process.chdir(runDir);
  // Not its umask: the processes it starts create files as they would anywhere else there.
  const machine = new LocalMachine(serverEnv(process.env, process.execPath, os.homedir()), os.homedir());
  const sessions = new Map<string, Session>();

  const endSession = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    if (!session) {
      return;
    }
    sessions.delete(id);
    clearTimeout(session.idle);
    session.end.detach();
    await session.server.dispose();
    session.client?.end();
    if (sessions.size === 0) {
      listener.close();
      rmSync(SOCKET, { force: true });
      process.exit(0);
    }
  };
  const newSession = (id: string): Session => {
    // Messages reach the server only once both exist (the link reads nothing before it is attached).
    const end: ResumableEnd = new ResumableEnd((message) => server.receiveMessage(message));
    const server = new MachineServer(machine, (message) => end.send(message));
    server.onShutdown = () => void endSession(id);
    const session: Session = { server, end, client: undefined, idle: undefined };
    sessions.set(id, session);
    return session;
  };

  const listener = createServer((socket) => {
    socket.on('error', () => undefined);
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    // The first line names the session; it and every line after go to that session's link.
    const feed = new PassThrough();
    let session: Session | undefined;
    lines.on('line', (line) => {
      if (!session) {
        let id: unknown;
        try {
          id = (JSON.parse(line) as { hello?: { session?: unknown } }).hello?.session;
        } catch {
          id = undefined;
        }
        if (typeof id !== 'string' || id === '') {
          socket.destroy();
          return;
        }
        const known = sessions.get(id);
        const chosen = known ?? newSession(id);
        session = chosen;
        // The newest connection of a session is its client; one before it is closed.
        chosen.client?.destroy();
        chosen.client = socket;
        clearTimeout(chosen.idle);
        socket.once('close', () => {
          if (chosen.client === socket) {
            chosen.client = undefined;
            chosen.end.detach();
            chosen.idle = setTimeout(() => void endSession(id), idleMs);
          }
        });
        chosen.end.attach(feed, socket, { answer: () => ({ session: id, fresh: known === undefined }) }).catch(() => socket.destroy());
      }
      feed.write(`${line}\n`);
    });
    lines.once('close', () => feed.end());
  });
  listener.on('error', (error: NodeJS.ErrnoException) => {
    // Another daemon took the socket first: it serves, this one is not needed.
    process.stderr.write(`machine server daemon: ${error.message}\n`);
    process.exit(error.code === 'EADDRINUSE' ? 0 : 1);
  });
  // With no session at all for `idleMs` after it starts, it ends.
  const unused = setTimeout(() => {
    if (sessions.size === 0) {
      process.exit(0);
    }
  }, idleMs);
  unused.unref();
  // The run folder is 0700 (no one else reaches the socket meanwhile); the socket is made 0600 as well.
  listener.listen(SOCKET, () => chmodSync(SOCKET, 0o600));
  const endAll = async (): Promise<void> => {
    await Promise.all([...sessions.keys()].map((id) => endSession(id)));
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => void endAll());
  }
  // A hang-up of the session that started it is not its end.
  process.on('SIGHUP', () => undefined);
}

/**
 * Joins this process's standard input and output to the daemon in `runDir`, starting the daemon
 * (detached, in a session of its own) when none listens. Ends when either side does.
 */
export async function runRelay(runDir: string, script: string, idleMs: number): Promise<void> {
  mkdirSync(runDir, { recursive: true, mode: 0o700 });
  // The folder is this user's alone, whoever made it: no one else may reach the socket in it.
  if (statSync(runDir).uid !== process.getuid?.()) {
    process.stderr.write(`${runDir} belongs to another user; the machine server does not use it\n`);
    process.exit(1);
  }
  chmodSync(runDir, 0o700);
  process.chdir(runDir);
  let socket = await connect().catch(() => undefined);
  if (!socket) {
    rmSync(SOCKET, { force: true });
    const log = openSync(LOG, 'a', 0o600);
    const daemon = spawn(process.execPath, [script, '--daemon', runDir, '--idle-ms', String(idleMs)], {
      detached: true,
      stdio: ['ignore', log, log],
      cwd: runDir,
    });
    daemon.unref();
    const until = Date.now() + DAEMON_START_MS;
    while (!socket && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket = await connect().catch(() => undefined);
    }
    if (!socket) {
      process.stderr.write(`the machine server daemon did not start listening within ${DAEMON_START_MS / 1000} s (see ${runDir}/${LOG})\n`);
      process.exit(1);
    }
  }
  const joined = socket;
  process.stdin.pipe(joined);
  joined.pipe(process.stdout);
  process.stdin.once('end', () => joined.end());
  joined.once('close', () => process.exit(0));
  joined.on('error', () => process.exit(1));
}

function connect(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(SOCKET);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}
