/**
 * Which log-in an agent's process uses, as the agent says it: Claude Code's `authStatus`
 * extension (`agentCapabilities._meta.authStatus` marks an agent that pushes it; the
 * notification `_auth/status_update` carries `{ authStatus: { kind, label, detail? } }`, read from
 * claude-agent-acp's auth-status.js). Only the agent knows whether `logout` can end the log-in in
 * use: a key from the environment outlives it.
 */
import { z } from 'zod';

/** The notification that carries the status (agent → client, connection-wide). */
export const AUTH_STATUS_METHOD = '_auth/status_update';

/** One status: `account` (a log-in the agent keeps), `api_key`, `gateway`, `external` (a cloud's own credentials), `none`. */
export const authStatusSchema = z.object({
  kind: z.string().min(1).max(40),
  label: z.string().max(200),
  detail: z.string().max(200).optional(),
});
export type AuthStatus = z.infer<typeof authStatusSchema>;

/** The notification's params (an account's e-mail becomes the detail); anything else in it is ignored. */
export const authStatusParams = z
  .object({ authStatus: authStatusSchema.extend({ account: z.object({ email: z.string().max(200).optional() }).optional() }) })
  .transform(({ authStatus: { account, ...status } }): { authStatus: AuthStatus } => ({
    authStatus: status.detail === undefined && account?.email ? { ...status, detail: account.email } : status,
  }));

/** Log-ins that `logout` ends: the ones the agent keeps itself (an account, or a gateway it was given). */
export function logoutEnds(status: AuthStatus): boolean {
  return status.kind === 'account' || status.kind === 'gateway';
}

/** Waits for an agent's status: the latest one, and the first one's arrival. */
export class AuthStatusWatch {
  private latest: AuthStatus | undefined;
  private readonly waiting = new Set<() => void>();

  get current(): AuthStatus | undefined {
    return this.latest;
  }

  set(status: AuthStatus): void {
    this.latest = status;
    for (const wake of this.waiting) {
      wake();
    }
    this.waiting.clear();
  }

  /** The status once one has come, or undefined after `timeoutMs` without one. */
  async first(timeoutMs: number): Promise<AuthStatus | undefined> {
    if (this.latest) {
      return this.latest;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(wake);
        resolve();
      }, timeoutMs);
      const wake = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiting.add(wake);
    });
    return this.latest;
  }
}
