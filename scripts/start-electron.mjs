// `npm start`: opens the Electron window; where no Electron binary can be had, starts the browser
// version instead (the web host, which opens the page), saying why.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electronBinary.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const binary = electronBinary();
const [command, args] = binary
  ? [binary, [root, ...process.argv.slice(2)]]
  : [process.execPath, [path.join(root, 'dist', 'main', 'web', 'cli.js'), ...process.argv.slice(2)]];
if (!binary) {
  console.log(
    'No Electron binary is installed on this machine (it is downloaded on first run, and that download is not reachable here), so Baton starts in your browser instead (the same as `npm run web`).',
  );
}
const child = spawn(command, args, { stdio: 'inherit' });
// Ctrl+C and a polite stop reach the child, which shuts down cleanly.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
