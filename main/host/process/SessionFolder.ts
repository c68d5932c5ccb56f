/**
 * A private folder per agent process for the files Baton generates for it (a replacement prompt,
 * a wrapper): 0700, files 0600, removed when the process ends and, at start-up, for processes
 * that died with an earlier host. Never inside the working folder, never a person's own file.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where the folders live inside the data folder. */
export const SESSION_FOLDERS = 'session-files';

/** One process's folder of generated files. */
export class SessionFolder {
  private constructor(readonly path: string) {}

  /** Makes a new folder under `<dataDir>/session-files`. */
  static create(dataDir: string): SessionFolder {
    const parent = path.join(dataDir, SESSION_FOLDERS);
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    const dir = mkdtempSync(path.join(parent, 'session-'));
    chmodSync(dir, 0o700);
    return new SessionFolder(dir);
  }

  /** Removes what earlier hosts left (one host per data folder: nothing there is in use). */
  static removeLeftovers(dataDir: string): void {
    rmSync(path.join(dataDir, SESSION_FOLDERS), { recursive: true, force: true });
  }

  /** Writes a file readable by this user only; returns its absolute path. */
  write(name: string, content: string, mode = 0o600): string {
    const file = path.join(this.path, name);
    writeFileSync(file, content, { mode });
    chmodSync(file, mode);
    return file;
  }

  /** Removes the folder and everything in it. */
  dispose(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}
