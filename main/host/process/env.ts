/** The environment a child process is started with. */

/** Environment as handed to a child process. */
export type Env = Readonly<Record<string, string>>;
