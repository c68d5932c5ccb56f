// `npm start`: builds only when a source changed (scripts/ensureBuilt.mjs), then opens the Electron
// window; where no Electron binary can be had, starts the browser version in this same process
// instead (the web host, which opens the page), saying why.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { electronBinary } from './electronBinary.mjs';
import { ensureBuiltOrExit } from './ensureBuilt.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
ensureBuiltOrExit(root);
const binary = electronBinary();
if (binary) {
  const child = spawn(binary, [root, ...process.argv.slice(2)], { stdio: 'inherit' });
  // Ctrl+C and a polite stop reach the window's process, which shuts down cleanly.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
} else {
  console.log(
    'No Electron binary is installed on this machine (it is downloaded on first run, and that download is not reachable here), so Baton starts in your browser instead (the same as `npm run web`).',
  );
  await import(pathToFileURL(path.join(root, 'dist', 'main', 'web', 'cli.js')).href);
}
