// `npm run web`, and the same without npm's own start-up: `node scripts/web.mjs [options]`.
// Builds only when a source changed, then starts the web host in this same process (the options
// are the web host's own: --port N, --data-dir DIR, --no-open, --host ADDRESS, --help).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureBuiltOrExit } from './ensureBuilt.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
ensureBuiltOrExit(root);
await import(pathToFileURL(path.join(root, 'dist', 'main', 'web', 'cli.js')).href);
