/**
 * Reads a regular file through one file descriptor, never more than a limit: the size is judged
 * by what is read, not by an earlier stat, so a file that grows (or is swapped) between a check
 * and the read cannot bring in more than the limit. The file is opened with `O_NOFOLLOW` (a link
 * in its last component is refused) and `O_NONBLOCK` (a FIFO or device opens at once instead of
 * holding one of Node's few file threads for good), then `fstat`ed: anything but a regular file
 * is refused before a byte is read. Given the identity a walk saw, a file that is no longer that
 * one (swapped meanwhile, or reached through a folder swapped for a link) is refused too.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/** What a bounded read found. */
export type BoundedRead = { kind: 'text'; text: string } | { kind: 'too-large' } | { kind: 'not-a-file' };

/** What a bounded read of bytes found. */
export type BoundedBytes =
  { kind: 'bytes'; data: Buffer; stat: Stats } | { kind: 'too-large'; stat: Stats } | { kind: 'not-a-file' } | { kind: 'changed' };

/** The identity a file is expected to have (as a folder walk saw it). */
export type FileIdentity = { dev: number; ino: number };

const CHUNK_BYTES = 64 * 1024;
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** What has been read so far: chunks until the end, or one byte past `limit` (which tells a file at the limit from a larger one). */
class Collected {
  private readonly chunks: Buffer[] = [];
  private total = 0;

  /**
   * `expected`: the size `fstat` gave. The first read asks for it and one byte more, the next for
   * one byte (which tells the end); a file that grew meanwhile is read on in chunks.
   */
  constructor(
    private readonly limit: number,
    private readonly expected: number,
  ) {}

  /** A buffer for the next read (only what a read put in it is ever kept). */
  next(): Buffer {
    const wanted = this.total === 0 ? this.expected + 1 : this.total === this.expected ? 1 : CHUNK_BYTES;
    return Buffer.allocUnsafe(Math.max(1, Math.min(wanted, this.limit + 1 - this.total)));
  }

  /** Takes what a read put into `buffer`; the bytes once the file is read, 'too-large' past the limit. */
  took(buffer: Buffer, read: number): Buffer | 'too-large' | undefined {
    if (read === 0) {
      return Buffer.concat(this.chunks, this.total);
    }
    this.chunks.push(buffer.subarray(0, read));
    this.total += read;
    return this.total > this.limit ? 'too-large' : undefined;
  }
}

/** The refusal for what `fstat` says of an open descriptor, if it is refused. */
function refusal(stat: Stats, expected: FileIdentity | undefined): BoundedBytes | undefined {
  if (!stat.isFile()) {
    return { kind: 'not-a-file' };
  }
  if (expected && (stat.dev !== expected.dev || stat.ino !== expected.ino)) {
    return { kind: 'changed' };
  }
  return undefined;
}

/** Reads `file`'s bytes if it is a regular file (and, with `expected`, still that file) of at most `limit` bytes. */
export function readBytesAtMostSync(file: string, limit: number, expected?: FileIdentity): BoundedBytes {
  const fd = openSync(file, FLAGS);
  try {
    const stat = fstatSync(fd);
    const refused = refusal(stat, expected);
    if (refused) {
      return refused;
    }
    const collected = new Collected(limit, stat.size);
    for (;;) {
      const buffer = collected.next();
      const done = collected.took(buffer, readSync(fd, buffer, 0, buffer.length, null));
      if (done === 'too-large') {
        return { kind: 'too-large', stat };
      }
      if (done) {
        return { kind: 'bytes', data: done, stat };
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The same without blocking the thread (agent file reads and checkpoints can be large). */
export async function readBytesAtMost(file: string, limit: number, expected?: FileIdentity): Promise<BoundedBytes> {
  const handle = await open(file, FLAGS);
  try {
    const stat = await handle.stat();
    const refused = refusal(stat, expected);
    if (refused) {
      return refused;
    }
    const collected = new Collected(limit, stat.size);
    for (;;) {
      const buffer = collected.next();
      const done = collected.took(buffer, (await handle.read(buffer, 0, buffer.length, null)).bytesRead);
      if (done === 'too-large') {
        return { kind: 'too-large', stat };
      }
      if (done) {
        return { kind: 'bytes', data: done, stat };
      }
    }
  } finally {
    await handle.close();
  }
}

/** A bytes read as text. */
function asText(read: BoundedBytes): BoundedRead {
  return read.kind === 'bytes'
    ? { kind: 'text', text: read.data.toString('utf8') }
    : read.kind === 'too-large'
      ? { kind: 'too-large' }
      : { kind: 'not-a-file' };
}

/** Reads `file` as UTF-8 if it is a regular file of at most `limit` bytes (a last-link symlink is refused by the open). */
export function readTextAtMostSync(file: string, limit: number): BoundedRead {
  return asText(readBytesAtMostSync(file, limit));
}

/** The same without blocking the thread. */
export async function readTextAtMost(file: string, limit: number): Promise<BoundedRead> {
  return asText(await readBytesAtMost(file, limit));
}
