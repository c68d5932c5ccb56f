/** The build's stamp and the check every start makes (see ensureBuilt.mjs). */
export function buildStamp(root: string): string;
export function buildState(root: string): { digest: string; current: boolean };
export function ensureBuilt(root: string): void;
export function ensureBuiltOrExit(root: string): void;
