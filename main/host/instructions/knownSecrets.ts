/**
 * Secret values Baton knows outside the toolbox: keys and tokens in the environment agents are
 * started with and in agents' own settings. They are redacted from injector output before it is
 * delivered or recorded.
 */
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';

/** Names of settings that hold a secret. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
/** Shorter values are too likely to occur by chance to be worth redacting. */
const MIN_SECRET_LENGTH = 8;

/** The secret values in the agents' environment and settings. */
export function agentSecrets(env: Env, adapters: readonly Pick<AgentAdapter, 'env'>[]): string[] {
  const values = new Set<string>();
  for (const source of [env, ...adapters.map((adapter) => adapter.env)]) {
    for (const [name, value] of Object.entries(source ?? {})) {
      if (SECRET_NAME.test(name) && typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) {
        values.add(value);
      }
    }
  }
  return [...values];
}
