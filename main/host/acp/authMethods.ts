/** The ways an agent offers to log in (from its `initialize` answer), and which of them run in a terminal. */
import { z } from 'zod';
import type { AuthMethodInfo } from '../../../app/errors.js';

/** A log-in method that runs in a terminal: the agent's own program with these arguments (or, where the agent names one, `command`). */
export type TerminalLoginMethod = { command?: string; args: string[]; env: Record<string, string> };

/** An auth method as `initialize` answers it (the fields read here). */
type OfferedMethod = {
  id: string;
  name: string;
  description?: string | null;
  type?: string;
  args?: string[];
  env?: Record<string, string>;
  _meta?: Record<string, unknown> | null;
};

/** `_meta["terminal-auth"]` of an auth method (the convention before ACP's `type: "terminal"`). */
const terminalAuthMeta = z.object({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
});

/** The arguments and environment of a terminal log-in method, or undefined when it is not one. */
export function terminalMethodOf(methods: readonly OfferedMethod[], methodId: string): TerminalLoginMethod | undefined {
  const method = methods.find((candidate) => candidate.id === methodId);
  if (!method) {
    return undefined;
  }
  if (method.type === 'terminal') {
    return { args: [...(method.args ?? [])], env: { ...(method.env ?? {}) } };
  }
  // The older convention some agents keep (GitHub Copilot CLI 1.0): `_meta["terminal-auth"]`
  // names the command to run (the agent's own program) with its arguments.
  const legacy = terminalAuthMeta.safeParse(method._meta?.['terminal-auth']);
  return legacy.success ? { command: legacy.data.command, args: legacy.data.args, env: legacy.data.env } : undefined;
}

/** The ways the agent offers to log in, as Baton shows them. */
export function authMethodsOf(methods: readonly OfferedMethod[]): AuthMethodInfo[] {
  return methods.map((method) => ({
    id: method.id,
    name: method.name,
    ...(method.description ? { description: method.description } : {}),
    ...(terminalMethodOf(methods, method.id) ? { terminal: true } : {}),
  }));
}
