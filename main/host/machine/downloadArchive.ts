/**
 * Downloading an agent's archive into a file, with its sha256 computed on the way and progress
 * said every tenth; an address that answers an error, or cannot be reached, fails with a sentence
 * that names it. `file:` addresses are copied (a mirror on disk, tests). On the machine floor
 * because a download lands on a machine: streamed to its file on this computer, or through this
 * computer and the machine's confined writer to another.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { LOCAL_MACHINE_ID, pathsOf, type Machine } from './Machine.js';

/** What was downloaded. */
export type Downloaded = { bytes: number; sha256: string };

/** Why a download failed: what the address answered or why it could not be reached. */
export class DownloadError extends Error {}

/** The largest archive Baton downloads. */
const MAX_ARCHIVE_BYTES = 2 * 1024 * 1024 * 1024;

/** Downloads `url` into `file`; `say` hears progress; stops with `signal`. */
export async function downloadArchive(
  url: string,
  file: string,
  options: { signal?: AbortSignal; say?: (text: string) => void } = {},
): Promise<Downloaded> {
  let body: Readable;
  let total: number | undefined;
  if (url.startsWith('file:')) {
    body = createReadStream(fileURLToPath(url));
  } else {
    let response: Response;
    try {
      response = await fetch(url, { redirect: 'follow', ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new DownloadError(`${url} could not be reached (${cause ?? (error as Error).message})`);
    }
    if (!response.ok || !response.body) {
      throw new DownloadError(`${url} answered ${response.status} ${response.statusText}`.trim());
    }
    const declared = Number(response.headers.get('content-length'));
    total = Number.isFinite(declared) && declared > 0 ? declared : undefined;
    if (total !== undefined && total > MAX_ARCHIVE_BYTES) {
      throw new DownloadError(`${url} is ${total} bytes, more than Baton downloads for an agent`);
    }
    body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  }
  const hash = createHash('sha256');
  let bytes = 0;
  let tenth = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > MAX_ARCHIVE_BYTES) {
        done(new DownloadError(`${url} is larger than Baton downloads for an agent`));
        return;
      }
      hash.update(chunk);
      if (total !== undefined && Math.floor((bytes / total) * 10) > tenth) {
        tenth = Math.floor((bytes / total) * 10);
        options.say?.(
          `Downloaded ${Math.round((bytes / total) * 100)}% (${(bytes / 1024 / 1024).toFixed(1)} of ${(total / 1024 / 1024).toFixed(1)} MB)`,
        );
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(body, counter, createWriteStream(file, { mode: 0o600 }), ...(options.signal ? [{ signal: options.signal }] : []));
  } catch (error) {
    if (error instanceof DownloadError || options.signal?.aborted) {
      throw error;
    }
    throw new DownloadError(`${url} could not be downloaded (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * Downloads `url` to `name` in `folder` on `machine`: straight there on this computer; for another
 * machine, here first (the checksum is computed on the way, on this computer), then sent to it
 * through its confined writer (never through a link). Returns the file's path on the machine.
 */
export async function downloadTo(
  machine: Machine,
  url: string,
  folder: string,
  name: string,
  options: { signal?: AbortSignal; say?: (text: string) => void } = {},
): Promise<Downloaded & { file: string }> {
  const file = pathsOf(machine).join(folder, name);
  if (machine.id === LOCAL_MACHINE_ID) {
    return { ...(await downloadArchive(url, file, options)), file };
  }
  const here = await mkdtemp(path.join(os.tmpdir(), 'baton-download-'));
  try {
    const got = await downloadArchive(url, path.join(here, name), options);
    options.say?.(`Sending the archive to ${machine.name}…`);
    await machine.writeConfined(folder, name, await readFile(path.join(here, name)), 0o600);
    return { ...got, file };
  } finally {
    await rm(here, { recursive: true, force: true });
  }
}
