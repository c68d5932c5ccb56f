/** One step of packaging: a command run from the project's folder, and what to say when it fails. */
export type ReleaseStep = { name: string; command: string; args: string[]; onFailure?: string };
/** The settings a target needs that are missing, each with what it is for. */
export function missingPackagingSettings(targets: string[], env: Record<string, string | undefined>): string[];
/** What packaging runs, in order (see package.mjs). */
export function releaseSteps(targets: string[], flags?: string[]): ReleaseStep[];
