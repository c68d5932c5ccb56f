/**
 * The port a data folder was served on last (`<data>/web-port`): the browser version's sign-in
 * cookie belongs to its port, so a restart on the same port keeps the window signed in.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const FILE = 'web-port';

/** The port the data folder was served on last, if one was kept. */
export function rememberedPort(dataDir: string): number | undefined {
  try {
    const port = Number(readFileSync(path.join(dataDir, FILE), 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port <= 65535 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the port the data folder is served on now. */
export function rememberPort(dataDir: string, port: number, log: (message: string) => void): void {
  try {
    writeFileSync(path.join(dataDir, FILE), `${port}\n`, { mode: 0o600 });
  } catch (error) {
    log(`could not keep the port for the next start: ${String(error)}`);
  }
}
