/**
 * Secret values Baton knows outside the toolbox: keys and tokens in the environment agents are
 * started with and in agents' own settings. They are redacted from injector output before it is
 * delivered or recorded.
 */
import type { Env } from './env.js';

/** Words of a setting's name that mark it as holding a secret (whole words: AUTHOR is not AUTH). */
const SECRET_WORDS = new Set([
  'KEY',
  'APIKEY',
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASS',
  'PWD',
  'PASSPHRASE',
  'CREDENTIAL',
  'CREDENTIALS',
  'AUTH',
  'COOKIE',
  'DSN',
]);
/** Whole names that hold credentials without saying so. */
const SECRET_NAMES = /^(DATABASE_URL|.*_DATABASE_URL|.*_CONNECTION_STRING|.*_CONN_STR)$/;

/** Names with a secret-looking word that are not secrets: the shell's working folders (`PWD` is also short for password). */
const NOT_SECRETS = new Set(['PWD', 'OLDPWD']);

/**
 * True when a setting named `name` holds a secret: `OPENAI_API_KEY`, `DB_PASS`, `DB_PWD`, `DATABASE_URL`, `apiKey`; not `GIT_AUTHOR_NAME`,
 * not `PWD`.
 */
export function isSecretName(name: string): boolean {
  const upper = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
  if (NOT_SECRETS.has(upper)) {
    return false;
  }
  return SECRET_NAMES.test(upper) || upper.split(/[^A-Z0-9]+/).some((word) => SECRET_WORDS.has(word));
}

/** A URL with a password in it (`postgres://user:pass@host/db`), whatever its setting is called. */
function hasUrlPassword(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i.test(value);
}

/** Shorter values are too likely to occur by chance to be worth redacting. */
const MIN_SECRET_LENGTH = 8;

/** The secret values in the agents' environment and settings. */
export function agentSecrets(env: Env, adapters: ReadonlyArray<{ env?: Env | undefined }>): string[] {
  const values = new Set<string>();
  for (const source of [env, ...adapters.map((adapter) => adapter.env)]) {
    for (const [name, value] of Object.entries(source ?? {})) {
      if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH && (isSecretName(name) || hasUrlPassword(value))) {
        values.add(value);
      }
    }
  }
  return [...values];
}
