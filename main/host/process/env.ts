/** The environment a child process is started with. */

/** Environment as handed to a child process. */
export type Env = Readonly<Record<string, string>>;

/** process.env without undefined values. */
export function definedEnv(env: NodeJS.ProcessEnv): Env {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
