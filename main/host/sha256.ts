/** The sha256 of a text, in hex: the digest Baton records for instructions, injected context and handoffs. */
import { createHash } from 'node:crypto';

/** sha256 of `text` (UTF-8), hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
