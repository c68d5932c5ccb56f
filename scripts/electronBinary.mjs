// Finds the Electron binary by its file path. `require('electron')` from plain Node would try to
// download it, which fails where only the npm registry is reachable.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Absolute path of the Electron executable, or undefined when none was downloaded. */
export function electronBinary() {
  const packageDir = path.join(root, 'node_modules', 'electron');
  const pathFile = path.join(packageDir, 'path.txt');
  const relative = existsSync(pathFile)
    ? readFileSync(pathFile, 'utf8').trim()
    : ({ darwin: 'Electron.app/Contents/MacOS/Electron', win32: 'electron.exe' }[process.platform] ?? 'electron');
  const candidate = path.join(packageDir, 'dist', relative);
  return existsSync(candidate) ? candidate : undefined;
}
