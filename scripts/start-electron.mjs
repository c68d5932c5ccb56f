// `npm start`: opens the Electron window, or says in one line why it cannot and what to run instead.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electronBinary.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const binary = electronBinary();
if (!binary) {
  console.log('No Electron binary is installed on this machine (it is downloaded on first run and that download is not reachable here); run `npm run web` to use Baton in your browser.');
  process.exit(1);
}
const child = spawn(binary, [root, ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
