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

/** Chunks read until the end or one byte past `limit` (which tells a file at the limit from a larger one). */
function collect(limit: number, readChunk: (buffer: Buffer) => number): BoundedRead {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, limit + 1 - total));
    const read = readChunk(buffer);
    if (read === 0) {
      return { kind: 'text', text: Buffer.concat(chunks, total).toString('utf8') };
    }
    chunks.push(buffer.subarray(0, read));
    total += read;
    if (total > limit) {
      return { kind: 'too-large' };
    }
  }
}

/** Reads `file` as UTF-8 if it is a regular file of at most `limit` bytes (a last-link symlink is refused by the open). */
export function readTextAtMostSync(file: string, limit: number): BoundedRead {
  const fd = openSync(file, FLAGS);
  try {
    if (!fstatSync(fd).isFile()) {
      return { kind: 'not-a-file' };
    }
    return collect(limit, (buffer) => readSync(fd, buffer, 0, buffer.length, null));
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
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, limit + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) {
        return { kind: 'text', text: Buffer.concat(chunks, total).toString('utf8') };
      }
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > limit) {
        return { kind: 'too-large' };
      }
    }
  } finally {
    await handle.close();
  }
}
