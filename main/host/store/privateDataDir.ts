/**
 * The data folder is the person's alone: transcripts, trusted folder text and server settings live
 * there. The folder is created 0700 and Baton's own files in it 0600. The process umask is left
 * alone on purpose: agents inherit it, and the files they write in the person's working folder
 * must keep the person's usual modes.
 */
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { LOG_FOLDER } from '../log/RotatingLog.js';

/** Owner-only folder and file modes. */
export const PRIVATE_FOLDER_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Folders whose files are tightened too (besides the data folder's own top level). */
const TIGHTENED_FOLDERS = [LOG_FOLDER];

/**
 * Creates the data folder 0700, or tightens one that other users can read or enter, with the
 * top-level files and the logs Baton keeps in it. Returns what was tightened (empty when nothing
 * was looser), for the caller to say once.
 */
export function ensurePrivateDataDir(dataDir: string): string[] {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const tightened: string[] = [];
  const tighten = (target: string, isFolder: boolean): void => {
    const mode = lstatSync(target).mode & 0o7777;
    if ((mode & 0o077) !== 0) {
      chmodSync(target, isFolder ? PRIVATE_FOLDER_MODE : mode & 0o700);
      tightened.push(target);
    }
  };
  tighten(dataDir, true);
  for (const folder of ['', ...TIGHTENED_FOLDERS]) {
    const directory = path.join(dataDir, folder);
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    if (folder !== '') {
      tighten(directory, true);
    }
    for (const entry of entries) {
      if (entry.isFile()) {
        tighten(path.join(directory, entry.name), false);
      }
    }
  }
  return tightened;
}

/**
 * Makes sure `file` exists with owner-only access before someone else (SQLite) opens it; SQLite gives its -wal and -shm files the database
 * file's mode.
 */
export function createPrivateFile(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  if ((lstatSync(file).mode & 0o077) !== 0) {
    chmodSync(file, PRIVATE_FILE_MODE);
  }
}
