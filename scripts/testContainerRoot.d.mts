/** Runs a command to its end (`input` piped to it); resolves with what it printed, rejects with its last words. */
export function runTool(command: string, args: string[], input?: NodeJS.ReadableStream): Promise<string>;
/** Runs `work` holding a lock (a folder made atomically); a lock whose holder has died is taken over. */
export function withLock<T>(lock: string, work: () => Promise<T>): Promise<T>;
/** The container tests' image root as a tar file under `repo`/.tmp/container/, made when it is not there yet; its path. */
export function ensureContainerRoot(repo: string): Promise<string>;
