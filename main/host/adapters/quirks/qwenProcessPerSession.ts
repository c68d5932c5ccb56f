/**
 * Quirk of Qwen Code 0.24 (measured with 0.24.4): in a process that already carries a session, a
 * later `session/new` does not get its own ACP MCP servers (its tool search finds none of their
 * tools). So each Qwen session gets a process of its own, as before the pool. Applied while the
 * version is not known yet too, since it is only known once a process has answered.
 */
import { versionIn } from '../versions.js';

export const qwenProcessPerSession = {
  processPerSession: (version: string | undefined): boolean => version === undefined || versionIn(version, '0.24.0'),
} as const;
