/**
 * `npm run web`: starts the host core and the web host on 127.0.0.1 and prints one line with the
 * address (and its per-run token). Options: --port N, --data-dir DIR, --no-open.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatonError } from '../../app/errors.js';
import { Host } from '../host/Host.js';
import { startWebServer } from './WebServer.js';

/** Parsed command line. */
export type CliOptions = { port: number; dataDir: string; open: boolean };

/** Parses arguments; throws with a readable message on a bad one. */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions {
  let port = 0;
  let dataDir = env.BATON_DATA_DIR || path.join(os.homedir(), '.baton');
  let open = true;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const next = inline ?? argv[++index];
      if (next === undefined) {
        throw new Error(`${name} needs a value.`);
      }
      return next;
    };
    switch (name) {
      case '--port': {
        const text = value();
        port = Number(text);
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          throw new Error(`--port must be a whole number from 0 to 65535, not "${text}".`);
        }
        break;
      }
      case '--data-dir':
        dataDir = path.resolve(value());
        break;
      case '--no-open':
        open = false;
        break;
      default:
        throw new Error(`Unknown option "${arg}". Options: --port N, --data-dir DIR, --no-open.`);
    }
  }
  return { port, dataDir, open };
}

function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => console.error(`Could not open a browser; open the address above yourself.`));
    child.unref();
  } catch {
    console.error('Could not open a browser; open the address above yourself.');
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2), process.env);
  const staticDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'renderer');
  const log = (message: string): void => {
    if (process.env.BATON_DEBUG) {
      console.error(`[baton] ${message}`);
    }
  };
  const host = new Host({ dataDir: options.dataDir, log });
  const server = await startWebServer({ host, staticDir, port: options.port, log }).catch(async (error: unknown) => {
    await host.dispose();
    throw error;
  });
  console.log(`Baton is running at ${server.url}`);
  if (options.open) {
    openBrowser(server.url);
  }
  let stopping = false;
  const stop = (): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    void server
      .close()
      .then(() => host.dispose())
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  const message = error instanceof BatonError || error instanceof Error ? error.message : String(error);
  const code = (error as NodeJS.ErrnoException).code;
  console.error(`Baton could not start: ${code === 'EADDRINUSE' ? 'that port is already in use.' : message}`);
  process.exit(1);
});
