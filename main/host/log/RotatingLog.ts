/**
 * Baton's log file in the data folder: one line per event, rotated by size (baton.log,
 * baton.1.log, … up to a few files). Callers log what happened, never message text,
 * instruction text or secret values. Owner-only, like the rest of the data folder.
 */
import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

/** Where the logs live inside the data folder. */
export const LOG_FOLDER = 'logs';

/** A size-rotated log file. */
export class RotatingLog {
  readonly file: string;
  private size: number;

  constructor(
    dataDir: string,
    private readonly maxBytes = 1024 * 1024,
    private readonly keep = 3,
  ) {
    const folder = path.join(dataDir, LOG_FOLDER);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    this.file = path.join(folder, 'baton.log');
    try {
      this.size = statSync(this.file).size;
    } catch {
      this.size = 0;
    }
  }

  /** Appends one line with its time; rotates first when the file would grow past its size. */
  write(message: string): void {
    const line = `${new Date().toISOString()} ${message.replace(/\s*\n\s*/g, ' ')}\n`;
    if (this.size + line.length > this.maxBytes) {
      this.rotate();
    }
    try {
      appendFileSync(this.file, line, { mode: 0o600 });
      this.size += Buffer.byteLength(line);
    } catch {
      // A full disk must not take the app down with its log.
    }
  }

  private rotate(): void {
    const numbered = (index: number): string => this.file.replace(/\.log$/, `.${index}.log`);
    rmSync(numbered(this.keep - 1), { force: true });
    for (let index = this.keep - 2; index >= 1; index -= 1) {
      try {
        renameSync(numbered(index), numbered(index + 1));
      } catch {
        // Not there yet.
      }
    }
    try {
      renameSync(this.file, numbered(1));
    } catch {
      // Nothing to rotate.
    }
    this.size = 0;
  }
}
