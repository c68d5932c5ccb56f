/** Command-line options of the web host. */
import os from 'node:os';
import path from 'node:path';

/** Parsed command line; `help` when the person asked for the options. */
/** `port` undefined: the port this data folder was served on last time, when it is free (else a free one). */
export type CliOptions = { port: number | undefined; dataDir: string; open: boolean; host?: string; help?: true };

/** What `--help` prints. */
export const USAGE = `Usage: npm run web -- [options]   (or, without npm's own start-up: node scripts/web.mjs [options])

Serves Baton to a browser on this machine and prints the address to open (with its one-time token).

Options:
  --port N          listen on port N (default: the port this data folder used last, when it is
                    free, so the browser's sign-in still holds; else a free one; 0: a free one)
  --data-dir DIR    keep conversations and settings in DIR (default: $BATON_DATA_DIR, else ~/.baton)
  --no-open         do not open a browser
  --host ADDRESS    serve on ADDRESS instead of 127.0.0.1 (plain HTTP: prefer an SSH tunnel)
  --help            print this and exit`;

/** Parses arguments; throws with a readable message on a bad one. */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions {
  let port: number | undefined;
  let dataDir = env.BATON_DATA_DIR || path.join(os.homedir(), '.baton');
  let open = true;
  let host: string | undefined;
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
        if (text.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
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
      case '--host':
        host = value();
        break;
      case '--help':
      case '-h':
        return { port, dataDir, open, help: true };
      default:
        throw new Error(`Unknown option "${arg}". Options: --port N, --data-dir DIR, --no-open, --host ADDRESS, --help.`);
    }
  }
  return { port, dataDir, open, ...(host ? { host } : {}) };
}

/**
 * The warning printed when serving beyond this machine: the web host speaks plain HTTP, so the
 * token and every message cross the network in the clear; an SSH tunnel to 127.0.0.1 is the safe way.
 */
export function exposedWarning(host: string, port: number): string | undefined {
  if (['127.0.0.1', '::1', 'localhost'].includes(host)) {
    return undefined;
  }
  const shown = port === 0 ? 'PORT' : String(port);
  return [
    `Warning: serving on ${host}, not only this machine. Anyone who can reach it and has the address's token can use your agents and read your conversations.`,
    'Baton serves plain HTTP: the token and everything you send cross the network in the clear, readable by anyone on the way.',
    `The safe way to use Baton from another machine: keep it on 127.0.0.1 and tunnel over SSH (on the other machine: ssh -L ${shown}:127.0.0.1:${shown} <this machine>, then open the printed address there).`,
  ].join('\n');
}
