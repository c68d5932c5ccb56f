/**
 * The two processes Baton's own helper programs start on the computer they run on, outside any
 * agent's process group: the MCP launcher's stdio server (the launcher is a child of the agent, on
 * the agent's machine, and its server its own child there) and the web host's browser. Kept in the
 * machine room with every other process start, so that `node:child_process` has one home.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/**
 * Starts a stdio server as a child of this process, its three streams piped; `error` is emitted
 * on the child when it cannot start (as `spawn` does).
 */
export function startStdioChild(command: string, args: readonly string[], env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  return spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Opens `url` in the person's browser with the system's opener; `onFailure` when it cannot be started. */
export function openInBrowser(url: string, onFailure: () => void): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', onFailure);
    child.unref();
  } catch {
    onFailure();
  }
}
