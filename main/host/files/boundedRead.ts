/**
 * Reads a regular file through one file descriptor, never more than a limit: the size is judged
 * by what is read, not by an earlier stat, so a file that grows (or is swapped) between a check
 * and the read cannot bring in more than the limit.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** What a bounded read found. */
export type BoundedRead = { kind: 'text'; text: string } | { kind: 'too-large' } | { kind: 'not-a-file' };

const CHUNK_BYTES = 64 * 1024;
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;

/** What has been read so far: chunks until the end, or one byte past `limit` (which tells a file at the limit from a larger one). */
class Collected {
  private readonly chunks: Buffer[] = [];
  private total = 0;

  constructor(private readonly limit: number) {}

  /** A buffer for the next read. */
  next(): Buffer {
    return Buffer.alloc(Math.min(CHUNK_BYTES, this.limit + 1 - this.total));
  }

  /** Takes what a read put into `buffer`; the answer once the file is read or over the limit. */
  took(buffer: Buffer, read: number): BoundedRead | undefined {
    if (read === 0) {
      return { kind: 'text', text: Buffer.concat(this.chunks, this.total).toString('utf8') };
    }
    this.chunks.push(buffer.subarray(0, read));
    this.total += read;
    return this.total > this.limit ? { kind: 'too-large' } : undefined;
  }
}

/** Reads `file` as UTF-8 if it is a regular file of at most `limit` bytes (a last-link symlink is refused by the open). */
export function readTextAtMostSync(file: string, limit: number): BoundedRead {
  const fd = openSync(file, FLAGS);
  try {
    if (!fstatSync(fd).isFile()) {
      return { kind: 'not-a-file' };
    }
    const collected = new Collected(limit);
    for (;;) {
      const buffer = collected.next();
      const done = collected.took(buffer, readSync(fd, buffer, 0, buffer.length, null));
      if (done) {
        return done;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The same without blocking the thread (agent file reads can be large). */
export async function readTextAtMost(file: string, limit: number): Promise<BoundedRead> {
  const handle = await open(file, FLAGS);
  try {
    if (!(await handle.stat()).isFile()) {
      return { kind: 'not-a-file' };
    }
    const collected = new Collected(limit);
    for (;;) {
      const buffer = collected.next();
      const done = collected.took(buffer, (await handle.read(buffer, 0, buffer.length, null)).bytesRead);
      if (done) {
        return done;
      }
    }
  } finally {
    await handle.close();
  }
}
