/**
 * A request of the contract whose text parameter is a file (an import), sent as the file itself:
 * `POST /api/upload/<method>`, the body the file's bytes (UTF-8). Only from our own origin (the
 * cookie is SameSite=Strict as well); the answer is the response body a WebSocket reply carries.
 */
import { isUtf8 } from 'node:buffer';
import type http from 'node:http';
import { InvalidRequestError, toWireError } from '../../app/errors.js';
import { fileParams, isFileMethod, MAX_IMPORT_CHARS, type ResponseBody } from '../../app/ipc/index.js';
import type { Host } from '../host/Host.js';

/** Answers one upload of `method`; `allowedHosts` are the host:port names of our own origin. */
export async function serveUpload(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  method: string,
  { host, allowedHosts }: { host: Host; allowedHosts: readonly string[] },
): Promise<void> {
  const answer = (status: number, body: ResponseBody): void => {
    response
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
      .end(JSON.stringify(body));
  };
  const refuse = (status: number, message: string): void =>
    answer(status, { ok: false, error: toWireError(new InvalidRequestError(message)) });
  const tooLarge = (): void => refuse(413, `The file is larger than ${MAX_IMPORT_CHARS / (1024 * 1024)} MB.`);
  if (!isFileMethod(method)) {
    refuse(404, `There is no upload for "${method}".`);
    return;
  }
  if (request.method !== 'POST') {
    response.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  if (!allowedHosts.some((allowed) => request.headers.origin === `http://${allowed}`)) {
    refuse(403, "An upload must come from Baton's own page.");
    return;
  }
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_IMPORT_CHARS) {
    tooLarge();
    request.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_IMPORT_CHARS) {
      tooLarge();
      request.destroy();
      return;
    }
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks, size);
  if (!isUtf8(bytes)) {
    refuse(400, 'The file is not UTF-8 text.');
    return;
  }
  // A byte-order mark is not part of the text.
  const text = bytes.toString('utf8', bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);
  answer(200, await host.handle(method, fileParams(method, text)));
}
