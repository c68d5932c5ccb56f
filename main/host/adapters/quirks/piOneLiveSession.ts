/**
 * Quirk of pi-acp 0.0.34: a process keeps one pi running, the newest session's. Each
 * `session/new` and `session/load` ends the pi of every other session it carries (its
 * `closeAllExcept`), and a closed session starts its pi again from its file at its next prompt.
 * Two sessions opened at once on one process race: the one that finishes first ends the other's pi
 * while that one is still answering `session/new`, which then fails with "pi process exited
 * (code=143)" (seen in the conformance suite on a busy machine). So each pi session gets a process
 * of its own, from pi-acp 0.0.34 on and while the version is not known yet.
 */
import { versionIn } from '../versions.js';

export const piOneLiveSession = {
  processPerSession: (version: string | undefined): boolean => version === undefined || versionIn(version, '0.0.34'),
} as const;
