/**
 * Who may in: every HTTP request and WebSocket upgrade must carry the per-run token, in the URL
 * once (then exchanged for an HttpOnly, SameSite=Strict cookie named per port) or in that cookie.
 * Repeated wrong tokens or cookies from one address are turned away for a while; a request that
 * presents neither is refused without counting (any local page can send those, and they must not
 * lock the person out); the right token always passes.
 */
import { timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

/** Wrong tokens (or cookies) allowed from one address within {@link FAILURE_WINDOW_MS} before it is turned away. */
export const MAX_TOKEN_FAILURES = 10;
/** How long wrong tokens are counted, and an address turned away. */
export const FAILURE_WINDOW_MS = 60_000;

/** What the gate says of a request. */
export type Verdict = 'ok' | 'refused' | 'turned-away';

/** The cookie's name on this port: cookies are shared by every port of a host, names are not. */
export function cookieName(port: number): string {
  return `baton_token_${port}`;
}

/** The token a request's cookie for this port carries, if any. */
export function cookieToken(request: http.IncomingMessage, port: number): string | undefined {
  const wanted = cookieName(port);
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === wanted) {
      return value.join('=');
    }
  }
  return undefined;
}

/** Whether `candidate` is the token (compared in constant time). */
export function tokenMatches(candidate: string | null | undefined, token: string): boolean {
  if (!candidate) {
    return false;
  }
  const a = Buffer.from(candidate);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The gate of one run: its token, and the wrong tokens counted by remote address. */
export class TokenGate {
  /** Wrong tokens by remote address: how many, since when. */
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(readonly token: string) {}

  /**
   * Whether a request may in: the right token or cookie always may; a wrong one counts against its
   * address, and an address with too many is turned away; a request that presents neither is
   * refused without counting.
   */
  admit(fromQuery: string | null, fromCookie: string | undefined, address: string): Verdict {
    if (tokenMatches(fromQuery, this.token) || tokenMatches(fromCookie, this.token)) {
      return 'ok';
    }
    if (this.turnedAway(address)) {
      return 'turned-away';
    }
    if (fromQuery || fromCookie) {
      const entry = this.failures.get(address) ?? { count: 0, since: Date.now() };
      this.failures.set(address, { ...entry, count: entry.count + 1 });
    }
    return 'refused';
  }

  private turnedAway(address: string): boolean {
    const entry = this.failures.get(address);
    if (entry && Date.now() - entry.since > FAILURE_WINDOW_MS) {
      this.failures.delete(address);
      return false;
    }
    return (entry?.count ?? 0) >= MAX_TOKEN_FAILURES;
  }
}
