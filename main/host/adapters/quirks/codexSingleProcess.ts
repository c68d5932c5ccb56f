/**
 * Quirk of codex-acp 2.x (measured with 2.6.0): Codex keeps a state database in `CODEX_HOME` that
 * one process holds. A second `codex-acp` started on the same `CODEX_HOME` while one runs exits
 * with "failed to initialize sqlite state runtime". One process takes many `session/new`, so the
 * pool shares it; a second one on the same state (another launch) is refused with the reason
 * instead of failing to start.
 */
import path from 'node:path';
import type { Env } from '../AgentAdapter.js';
import { versionIn } from '../versions.js';

export const codexSingleProcess = {
  exclusiveState: {
    applies: (version: string | undefined): boolean => versionIn(version, '2.0.0'),
    key: (env: Env): string => env.CODEX_HOME ?? path.join(env.HOME ?? env.USERPROFILE ?? '', '.codex'),
  },
} as const;
