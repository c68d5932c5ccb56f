/**
 * The desktop window's security decisions, kept apart from Electron so they are tested in plain
 * Node: the web preferences, which frames may speak to the host, how each IPC message is checked
 * against the contract, which links may open outside, and what the page may never have.
 */
import { InvalidRequestError, toWireError, type WireError } from '../../app/errors.js';
import { isMethod, requests, type Method } from '../../app/ipc/index.js';

/** The privileged scheme the renderer is served from (never file://). */
export const APP_SCHEME = 'app';
/** The page's origin. */
export const APP_ORIGIN = `${APP_SCHEME}://baton`;
/** The page itself. */
export const APP_PAGE = `${APP_ORIGIN}/index.html`;

/** The window's web preferences: isolated, sandboxed, no Node, no webviews. */
export function secureWebPreferences(preload: string) {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
  } as const;
}

/** True for a frame showing Baton's own page (and nothing else: no file://, no other origin). */
export function isOwnPage(url: string | undefined): boolean {
  if (!url) {
    return false;
  }
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === 'baton';
  } catch {
    return false;
  }
}

/** An IPC request that passed the checks, or the error it is answered with. */
export type CheckedRequest = { ok: true; method: Method; params: unknown } | { ok: false; error: WireError };

/**
 * Checks one IPC request: it comes from Baton's own page, names a method of the contract, and its
 * params parse with that method's schema. A forged or malformed one is refused and logged; the
 * app goes on.
 */
export function checkIpcRequest(
  senderUrl: string | undefined,
  method: unknown,
  params: unknown,
  log: (line: string) => void,
): CheckedRequest {
  const refuse = (why: string, message: string): CheckedRequest => {
    log(`refused an IPC request: ${why}`);
    return { ok: false, error: toWireError(new InvalidRequestError(message)) };
  };
  if (!isOwnPage(senderUrl)) {
    return refuse(`it came from ${senderUrl ?? 'an unknown frame'}`, "Requests are accepted only from Baton's own page.");
  }
  if (typeof method !== 'string' || !isMethod(method)) {
    return refuse(`unknown method ${JSON.stringify(method)?.slice(0, 80)}`, 'Unknown method.');
  }
  const parsed = requests[method].params.safeParse(params ?? {});
  if (!parsed.success) {
    return refuse(
      `malformed params for ${method}`,
      `Bad parameters for ${method}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`).join('; ')}`,
    );
  }
  return { ok: true, method, params: parsed.data };
}

/** A link the page asked to open, when it may open outside (http or https only). */
export function externalLink(url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Permissions the page asks for: notifications for Baton's own page (an agent waiting for the
 * person, a turn that finished or failed, each kind turned off in Settings › Notifications), and
 * nothing else (camera, microphone, clipboard reads…), for no other frame.
 */
export function allowPermission(permission: string, requestingUrl: string | undefined): boolean {
  return permission === 'notifications' && isOwnPage(requestingUrl);
}
