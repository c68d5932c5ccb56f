/**
 * An agent's own launch: its executable with its adapter's arguments and environment, in a folder,
 * and the digest processes are shared by. What every launch starts from: a conversation's binding
 * adds its instruction channels to it (`resolveBinding`), and the agent outside a conversation (a
 * card, a log-in, its own sessions) runs it as it is (`agents/AgentAccess.ts`).
 */
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import type { Env } from '../process/env.js';
import type { LaunchSpec } from '../machine/ProcessGroup.js';
import { sha256Hex } from '../sha256.js';
import type { LaunchPart } from './PreparedBinding.js';

/** A digest of a JSON value with its keys sorted, so equal values digest equally. */
export function digestOf(value: unknown): string {
  const sorted = (node: unknown): unknown =>
    Array.isArray(node)
      ? node.map(sorted)
      : node && typeof node === 'object'
        ? Object.fromEntries(
            Object.entries(node)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([key, inner]) => [key, sorted(inner)]),
          )
        : node;
  return sha256Hex(JSON.stringify(sorted(value)));
}

/** The agent's launch without any instruction channel. */
export function ownLaunch(adapter: AgentAdapter, executable: string, baseEnv: Env, cwd: string): LaunchSpec {
  const inherited: Env = { ...baseEnv, ...adapter.env };
  return { command: executable, args: adapter.args, env: adapter.projectEnv ? adapter.projectEnv(inherited) : inherited, cwd };
}

/** The launch part of the agent run as it is, with no instruction channel: outside a conversation, or to read its `initialize` answer. */
export function bareLaunch(adapter: AgentAdapter, executable: string, baseEnv: Env, cwd: string): Omit<LaunchPart, 'channel'> {
  const own = ownLaunch(adapter, executable, baseEnv, cwd);
  return { own, digest: launchDigest(own, null), materialize: () => own };
}

/** The digest of a launch with the instruction texts it carries (null: none); processes are shared by it. */
export function launchDigest(own: LaunchSpec, instructions: unknown): string {
  return digestOf({ command: own.command, args: own.args, env: own.env, instructions });
}
