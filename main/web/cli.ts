/**
 * `npm run web`: starts the host core and the web host on 127.0.0.1 and prints one line with the
 * address (and its per-run token). Options: --port N, --data-dir DIR, --no-open, and --host
 * ADDRESS to serve beyond this machine (with a warning).
 */
import { RotatingLog } from '../host/log/RotatingLog.js';
import { BatonError } from '../../app/errors.js';
import { definedEnv, Host } from '../host/Host.js';
import { agentPackagesFromEnv } from '../host/agents/agentPackagesFromEnv.js';
import { agentEnvironment } from '../host/machine/agentEnvironment.js';
import { openInBrowser } from '../host/machine/helperChildren.js';
import { ownFile } from '../host/ownFiles.js';
import { exposedWarning, parseArgs, USAGE } from './cliArgs.js';
import { startWebServer } from './WebServer.js';
import { rememberedPort, rememberPort } from './rememberedPort.js';

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2), process.env);
  if (options.help) {
    console.log(USAGE);
    return;
  }
  const staticDir = ownFile('renderer');
  // The web host keeps the same log file as the desktop app (Settings › Data folder shows it).
  const file = new RotatingLog(options.dataDir);
  const log = (message: string): void => {
    file.write(message);
    if (process.env.BATON_DEBUG) {
      console.error(`[baton] ${message}`);
    }
  };
  // Started from a terminal, the PATH is the person's own; version-manager shims are added where they exist.
  const env = await agentEnvironment(definedEnv(process.env), { askLoginShell: false });
  const agentPackages = agentPackagesFromEnv(env);
  const host = new Host({ dataDir: options.dataDir, log, logFile: file.file, env, ...(agentPackages ? { agentPackages } : {}) });
  // The port this data folder used last (the browser's cookie is per port), when it is free.
  const remembered = options.port === undefined ? rememberedPort(options.dataDir) : undefined;
  const serve = (port: number) =>
    startWebServer({ host, staticDir, port, log, ...(options.host ? { bindAddress: options.host, exposed: true } : {}) });
  const server = await (
    remembered !== undefined
      ? serve(remembered).catch((error: unknown) =>
          (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? serve(0) : Promise.reject(error),
        )
      : serve(options.port ?? 0)
  ).catch(async (error: unknown) => {
    await host.dispose();
    throw error;
  });
  if (options.port === undefined) {
    rememberPort(options.dataDir, server.port, log);
  }
  const warning = options.host ? exposedWarning(options.host, server.port) : undefined;
  if (warning) {
    console.error(warning);
  }
  console.log(`Baton is running at ${server.url}`);
  log(`web host started on port ${server.port}`);
  if (options.open) {
    openInBrowser(server.url, () => console.error('Could not open a browser; open the address above yourself.'));
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
