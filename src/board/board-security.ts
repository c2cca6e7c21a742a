import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';

/**
 * What keeps the board to the person who started it, on a machine others share:
 *
 * - a random token in every URL (page, assets, API, events): without it, 404; compared
 *   in constant time (hashes of equal length), never echoed back;
 * - the Host header must name this server by loopback address or `localhost` (or, when
 *   bound elsewhere on purpose, by an IP literal): a DNS name pointing here (DNS
 *   rebinding) is refused;
 * - a state-changing request and the event stream must come from the page itself:
 *   Origin (and Sec-Fetch-Site, where sent) checked; no CORS header is ever sent, and
 *   actions take only `application/json`, which a cross-site form cannot send;
 * - a strict Content-Security-Policy (scripts and styles from the board only, no inline
 *   script or eval, no framing), nosniff, no Referer (the token would leak through it).
 */

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Constant time: both sides hashed to 32 bytes, then compared whole. */
export function tokenMatches(given: string, token: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The Host header a request may carry: this port, and a loopback name or address, or
 * the address the board listens on as it was given (the URL it prints names it: a
 * `--host 127.0.0.5` board answers to 127.0.0.5); when listening beyond loopback, any IP
 * literal too (a rebinding attack needs a DNS name of its own).
 */
export function hostAllowed(header: string | undefined, port: number, loopbackOnly: boolean, bound?: string): boolean {
  if (header === undefined) return false;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d+)$/.exec(header);
  if (!m || Number(m[2]) !== port) return false;
  const name = (m[1] as string).replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name === '127.0.0.1' || name === '::1') return true;
  if (bound !== undefined && name === bound.toLowerCase()) return true;
  return !loopbackOnly && net.isIP(name) !== 0;
}

/**
 * For actions and the event stream: an Origin, when the browser sends one, must be this
 * server as the Host names it; Sec-Fetch-Site, when sent, must be same-origin (or none:
 * typed in the address bar). `requireOrigin`: actions must carry an Origin (browsers
 * send it on every POST).
 */
export function originAllowed(
  headers: { origin?: string | undefined; host?: string | undefined; 'sec-fetch-site'?: string | undefined },
  requireOrigin: boolean,
): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = headers.origin;
  if (origin === undefined) return !requireOrigin;
  return origin === `http://${headers.host}`;
}

/** Sent with every response. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
