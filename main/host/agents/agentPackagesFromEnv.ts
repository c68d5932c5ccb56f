/**
 * `BATON_AGENT_PACKAGES`: where managed installs come from, when not the pinned npm packages.
 * A JSON object from agent id to npm specs (a mirror's names, or local tarballs), e.g.
 * `{"claude": ["/srv/mirror/claude-agent-acp-0.23.1.tgz"]}`.
 */
import { z } from 'zod';
import { InvalidRequestError } from '../../../app/errors.js';
import type { Env } from '../adapters/AgentAdapter.js';

const overridesSchema = z.record(z.string().min(1), z.array(z.string().min(1)).min(1));

/** The overrides in `env`, or undefined when unset; a bad value is a readable error. */
export function agentPackagesFromEnv(env: Env): Record<string, string[]> | undefined {
  const raw = env.BATON_AGENT_PACKAGES;
  if (!raw) {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new InvalidRequestError('BATON_AGENT_PACKAGES is not JSON; it should map agent ids to lists of npm specs.');
  }
  const parsed = overridesSchema.safeParse(json);
  if (!parsed.success) {
    throw new InvalidRequestError(
      `BATON_AGENT_PACKAGES should map agent ids to lists of npm specs: ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
    );
  }
  return parsed.data;
}
