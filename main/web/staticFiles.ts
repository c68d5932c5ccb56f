/**
 * The built renderer's files, for the web host and the desktop's app:// protocol alike: confined to their folder, with one
 * Content-Security-Policy.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';

/** The Content-Security-Policy of Baton's page, in the browser and in the desktop window. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/** Content types of the renderer's files. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Maps a URL path to a file inside `root`; anything else (or a missing file) is the app's index.html. */
export async function resolveStatic(root: string, pathname: string): Promise<string> {
  const index = path.join(root, 'index.html');
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return index;
  }
  const candidate = path.resolve(root, `.${path.posix.normalize(decoded)}`);
  if (!candidate.startsWith(path.resolve(root) + path.sep)) {
    return index;
  }
  try {
    return (await stat(candidate)).isFile() ? candidate : index;
  } catch {
    return index;
  }
}
