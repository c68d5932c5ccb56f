/**
 * The host's own files on this computer besides the database:
 * - the data folder's small files: `agents.json`, Baton's agent installs (`agents/<agent>/`, with
 *   the record `baton-agent.json`), the ACP Registry's kept copy (`registry/`) and the MCP
 *   launches' run folder (`run/`);
 * - what Baton ships beside its code (the registry's snapshot, the agents' locks);
 * - a source given as a `file:` address (a registry mirror on disk).
 * They are read synchronously where the caller cannot wait (the agent catalog answers the picker,
 * and the redaction of every commit asks it for the agents' secrets). A working folder's files never
 * come here: a folder is a place on a machine, read and written through its `Machine`.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from './privateDataDir.js';

/** The file's text; throws as `readFileSync` does (ENOENT when it is not there). */
export function readDataText(file: string): string {
  return readFileSync(file, 'utf8');
}

/** The file's bytes; throws as `readFileSync` does. */
export function readDataBytes(file: string): Buffer {
  return readFileSync(file);
}

/** True when something is at `file`. */
export function dataFileExists(file: string): boolean {
  return existsSync(file);
}

/** What tells one version of the file from another (time of change, size, inode), or undefined when it cannot be stat'ed. */
export function dataFileStamp(file: string): string | undefined {
  try {
    const info = statSync(file);
    return `${info.mtimeMs}:${info.size}:${info.ino}`;
  } catch {
    return undefined;
  }
}

/** Writes the file owner-only (0600 unless `mode` says otherwise), making its folder owner-only first when it is not there. */
export function writeDataFile(file: string, data: string | Buffer, mode: number = PRIVATE_FILE_MODE): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  writeFileSync(file, data, { mode });
}

/** Makes the folder (and its parents) owner-only when it is not there. */
export function makeDataFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
}

/** A new owner-only folder in `parent` (which is there), named `prefix` and six random characters. */
export function makeDataTempFolder(parent: string, prefix: string): string {
  const folder = mkdtempSync(path.join(parent, prefix));
  chmodSync(folder, PRIVATE_FOLDER_MODE);
  return folder;
}

/** Sets the mode of a file or folder (a folder owner-only: {@link PRIVATE_FOLDER_MODE}; a file or socket: {@link PRIVATE_FILE_MODE}). */
export function setDataMode(target: string, mode: number): void {
  chmodSync(target, mode);
}

/** Removes the file or folder, with what is in it; nothing when it is not there. */
export function removeDataPath(target: string): void {
  rmSync(target, { recursive: true, force: true });
}

/** A file given as a source (a `file:` address), read whole; a `RangeError` when it is larger than `maxBytes`. */
export async function readSourceText(file: string, maxBytes?: number): Promise<string> {
  if (maxBytes !== undefined && (await stat(file)).size > maxBytes) {
    throw new RangeError(`${file} is larger than ${maxBytes} bytes`);
  }
  return readFile(file, 'utf8');
}
