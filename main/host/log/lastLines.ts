/** The end of Baton's log, read back for the page's log view. */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** The last `count` lines of a file (at most its last 256 KiB are read); none when it is not there yet. */
export function lastLines(file: string, count: number): string[] {
  let text: string;
  try {
    const size = statSync(file).size;
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    const handle = openSync(file, 'r');
    try {
      readSync(handle, buffer, 0, length, size - length);
    } finally {
      closeSync(handle);
    }
    text = buffer.toString('utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .slice(-count);
}
