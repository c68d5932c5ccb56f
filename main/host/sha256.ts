/** The sha256 of a text or bytes, in hex: the digest Baton records for instructions, injected context, handoffs and attachments. */
import { createHash } from 'node:crypto';

/** sha256 of `data` (a text as UTF-8), hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
