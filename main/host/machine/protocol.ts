/**
 * The machine protocol: what a host asks a machine server (`MachineServer`, which runs
 * `LocalMachine` on its computer) and what the server answers or reports, one JSON object per
 * line over any byte stream (a local child's stdio, an SSH channel). Every message is parsed with
 * these schemas on both sides, as `app/ipc` does for the host API. Bytes travel as base64.
 *
 * - A request `{id, method, params}` gets one answer `{id, result}` or `{id, error}`.
 * - A note `{note, params}` (the client's stdin bytes, closing a watch, the end) gets none.
 * - An event `{event, params}` (a process's output and end, a watch's changes) comes unasked.
 */
import { z } from 'zod';

/** The protocol's version: a server of another version is not spoken to. */
export const MACHINE_PROTOCOL_VERSION = 2;

const launch = z.object({
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  cwd: z.string(),
  verbatimArguments: z.boolean().optional(),
});

const entry = z.object({
  path: z.string(),
  hash: z.string(),
  size: z.number(),
  mode: z.number(),
  mtimeMs: z.number(),
  ctimeMs: z.number().optional(),
  ino: z.number(),
  link: z.literal(true).optional(),
});
const leftOut = z.object({ path: z.string(), reason: z.string() });
/** What a tree watch knows (see `TreeWatch`). */
const known = z.union([z.object({ since: z.string(), paths: z.array(z.string()) }), z.object({ unknown: z.string() })]);

/** Each method: its parameters and its result. */
export const machineMethods = {
  hello: {
    params: z.object({ version: z.number() }),
    result: z.object({
      version: z.number(),
      os: z.string(),
      arch: z.string(),
      home: z.string(),
      /** Baton's own folder there (since version 2). */
      dataDir: z.string().optional(),
      env: z.record(z.string(), z.string()),
      pid: z.number(),
    }),
  },
  exec: {
    params: z.object({
      command: z.string(),
      args: z.array(z.string()),
      cwd: z.string().optional(),
      env: z.record(z.string(), z.string()).optional(),
      timeoutMs: z.number().optional(),
      maxBytes: z.number().optional(),
    }),
    result: z.object({ stdout: z.string(), stderr: z.string(), code: z.number().nullable(), signal: z.string().nullable() }),
  },
  which: {
    params: z.object({ command: z.string(), path: z.string().optional() }),
    result: z.object({ path: z.string().nullable() }),
  },
  spawn: {
    params: z.object({ process: z.number(), launch }),
    result: z.object({ pid: z.number() }),
  },
  hangUpChildren: { params: z.object({ process: z.number() }), result: z.object({}) },
  disposeProcess: { params: z.object({ process: z.number() }), result: z.object({}) },
  watch: { params: z.object({ watch: z.number(), folder: z.string() }), result: z.object({}) },
  readFile: {
    params: z.object({ path: z.string(), maxBytes: z.number() }),
    result: z.object({ data: z.string(), tooLarge: z.boolean() }),
  },
  writeConfined: {
    params: z.object({
      root: z.string(),
      relative: z.string(),
      data: z.string(),
      mode: z.number().optional(),
      owner: z.object({ uid: z.number(), gid: z.number() }).optional(),
    }),
    result: z.object({}),
  },
  stat: {
    params: z.object({ path: z.string() }),
    result: z.object({ kind: z.enum(['file', 'folder', 'other']), size: z.number(), mode: z.number(), uid: z.number(), gid: z.number() }),
  },
  realpath: { params: z.object({ path: z.string() }), result: z.object({ path: z.string() }) },
  restore: {
    params: z.object({
      folder: z.string(),
      /** Each file as the checkpoint holds it (its content in `contents`, by hash), or removed (no entry). */
      restores: z.array(z.object({ path: z.string(), entry: entry.optional() })),
      contents: z.record(z.string(), z.string()),
      recordedReal: z.string().optional(),
      /** A folder just made that nothing has run in: every entry written as `Machine.populate` does (no removals). */
      fresh: z.boolean().optional(),
    }),
    /** With `fresh`: the files made, as entries of the new folder. */
    result: z.object({ failed: z.array(leftOut), made: z.array(entry).optional() }),
  },
  cloneFiles: {
    params: z.object({ folder: z.string(), from: z.string(), entries: z.array(entry) }),
    result: z.object({ cloned: z.array(entry), unsupported: z.string().optional() }),
  },
  mkdir: { params: z.object({ path: z.string(), mode: z.number().optional() }), result: z.object({}) },
  remove: { params: z.object({ path: z.string() }), result: z.object({}) },
  rename: { params: z.object({ from: z.string(), to: z.string() }), result: z.object({}) },
  walk: { params: z.object({ folder: z.string() }), result: z.object({ files: z.array(z.string()) }) },
  /** A tree watch started (resolves once every folder is watched); `unwatchTree` ends it. */
  watchTree: { params: z.object({ watch: z.number(), root: z.string(), maxPaths: z.number() }), result: z.object({}) },
  takeTree: { params: z.object({ watch: z.number() }), result: z.object({ known, token: z.number() }) },
  peekTree: { params: z.object({ watch: z.number() }), result: z.object({ known }) },
  unpackAgent: {
    params: z.object({ file: z.string(), url: z.string(), folder: z.string(), cmd: z.string() }),
    result: z.object({ program: z.string() }),
  },
  list: {
    params: z.object({ path: z.string() }),
    result: z.object({ entries: z.array(z.object({ name: z.string(), kind: z.enum(['file', 'folder', 'link', 'other']) })) }),
  },
  scan: {
    params: z.object({
      folder: z.string(),
      /** The last manifest (empty when `previousRef` names the one the server kept). */
      previous: z.array(entry),
      /** The manifest the server kept from its last scan of the folder, by the `ref` it gave (ESTALE when it has another). */
      previousRef: z.string().optional(),
      /** Only what changed comes back: `entries` the new and changed, `removed` the paths gone. */
      delta: z.boolean().optional(),
      scope: z.union([
        z.object({ walk: z.literal(true) }),
        z.object({ paths: z.array(z.string()), tooLarge: z.array(leftOut), failed: z.array(leftOut), unswept: z.literal(true).optional() }),
      ]),
      maxFileBytes: z.number(),
      maxFiles: z.number(),
      keep: z.boolean(),
    }),
    result: z.object({
      entries: z.array(entry),
      removed: z.array(z.string()).optional(),
      /** The manifest the server keeps now for the folder (the next scan may name it instead of sending it). */
      ref: z.string().optional(),
      stored: z.array(z.object({ hash: z.string(), size: z.number(), data: z.string() })),
      tooLarge: z.array(leftOut),
      failed: z.array(leftOut),
      read: z.number(),
      reused: z.number(),
    }),
  },
} as const;

/** A method's name. */
export type MachineMethod = keyof typeof machineMethods;
/** A method's parameters. */
export type MachineParams<M extends MachineMethod> = z.infer<(typeof machineMethods)[M]['params']>;
/** A method's result. */
export type MachineResult<M extends MachineMethod> = z.infer<(typeof machineMethods)[M]['result']>;

/** The notes a client sends (no answer). */
export const machineNotes = {
  stdin: z.object({ process: z.number(), data: z.string().optional(), end: z.boolean().optional() }),
  unwatch: z.object({ watch: z.number() }),
  basedTree: z.object({ watch: z.number(), token: z.number(), checkpointId: z.string() }),
  unwatchTree: z.object({ watch: z.number() }),
  /** Baton is done with the machine: the durable server ends every process it holds, and itself. */
  shutdown: z.object({}),
} as const;

/** The events a server sends. */
export const machineEvents = {
  output: z.object({ process: z.number(), stream: z.enum(['stdout', 'stderr']), data: z.string() }),
  exit: z.object({ process: z.number(), code: z.number().nullable(), signal: z.string().nullable() }),
  changed: z.object({ watch: z.number(), type: z.enum(['rename', 'change']), name: z.string().nullable() }),
  watchFailed: z.object({ watch: z.number(), code: z.string().nullable(), message: z.string() }),
} as const;

/** An error as it crosses: its message, and the system's code where there is one (ENOENT, EACCES). */
export const machineError = z.object({ message: z.string(), code: z.string().optional() });

/** Any line a client sends. */
export const clientLine = z.union([
  z.object({ id: z.number(), method: z.string(), params: z.unknown() }),
  z.object({ note: z.string(), params: z.unknown() }),
]);

/** Any line a server sends. */
export const serverLine = z.union([
  z.object({ id: z.number(), result: z.unknown() }),
  z.object({ id: z.number(), error: machineError }),
  z.object({ event: z.string(), params: z.unknown() }),
]);

/** A line of the protocol read with `schema`; undefined for a line that is not JSON or not of that form (it is dropped). */
export function parseLine<T>(line: string, schema: z.ZodType<T>): T | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(message);
  return parsed.success ? parsed.data : undefined;
}

/** An error of the machine, rebuilt on the host's side with its code (so `code === 'ENOENT'` reads as locally). */
export class MachineError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}
