/** What npm (and the install scripts it runs) is given of Baton's environment, and what an npm spec pins. */
import { packageName } from '../adapters/builtinAdapter.js';
import type { Env } from '../process/env.js';

/** The version an npm spec pins ("@scope/name@1.2.3" → "1.2.3"), if it names one. */
export function pinOf(spec: string | undefined): string | undefined {
  if (!spec) {
    return undefined;
  }
  const name = packageName(spec);
  return name !== spec ? spec.slice(name.length + 1) : undefined;
}

/** Names npm (and the install scripts it runs) may see: where things are, the locale, npm's own settings, the proxy and certificates. */
const NPM_NAMES =
  /^(PATH|PATHEXT|HOME|USERPROFILE|APPDATA|LOCALAPPDATA|SYSTEMROOT|SYSTEMDRIVE|COMSPEC|WINDIR|TEMP|TMP|TMPDIR|USER|USERNAME|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z]+|TZ|XDG_(CONFIG|CACHE|DATA|STATE)_HOME|(HTTPS?|NO|ALL)_PROXY|NODE_EXTRA_CA_CERTS|SSL_CERT_(FILE|DIR)|NPM_CONFIG_.+|BATON_TEST_RUN)$/i;

/**
 * The environment npm runs with: only what it needs, never the agents' keys or anything else of
 * Baton's own environment (a package's install script sees everything npm is given).
 */
export function npmEnvironment(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([name]) => NPM_NAMES.test(name)));
}
