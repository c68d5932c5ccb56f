/** Requests about machines: this computer and those reached over SSH (Settings › Machines, the new conversation's picker). */
import { z } from 'zod';

/** Why a machine cannot be used until the person acts (see `MachineBlockedError`). */
export const machineBlockedReasonSchema = z.enum([
  'host-key-unknown',
  'host-key-changed',
  'authentication',
  'unreachable',
  'no-node',
  'server',
]);

/** The Node Baton offers to upload to a machine that has none: its version and what it costs to send. */
export const nodeOfferSchema = z.object({ version: z.string(), megabytes: z.number() });

/** One machine as the person sees it. */
export const machineSchema = z.object({
  machineId: z.string(),
  /** Its alias or `user@host` ("This computer" for this one). */
  name: z.string(),
  /** What ssh is given, or the command that reaches it; null for this computer. */
  destination: z.string().nullable(),
  /** Where it comes from: this computer, a `Host` of the person's ssh config, added in Baton, or a command added in Baton. */
  source: z.enum(['this-computer', 'ssh-config', 'added', 'command']),
  state: z.enum(['this-computer', 'not-connected', 'connecting', 'connected', 'reconnecting', 'blocked']),
  /** Why it is blocked. */
  reason: machineBlockedReasonSchema.nullable(),
  /** What went wrong (blocked), why it reconnects, or what a slow step of connecting is doing, in words. */
  message: z.string().nullable(),
  /** The SHA256 fingerprint of a host key it offered that is not trusted yet. */
  fingerprint: z.string().nullable(),
  /** Blocked for having no Node: the Node Baton can upload there, when the person agrees. */
  nodeOffer: nodeOfferSchema.nullable(),
  /** Since when it reconnects (epoch ms). */
  since: z.number().nullable(),
  /** A dev container's: the last lines `devcontainer up` printed (while it comes up, or why it did not). */
  log: z.array(z.string()).default([]),
  /** A dev container's: where the working folder is in it, once it is up. */
  workspace: z.string().nullable().default(null),
});

/** One machine as the person sees it. */
export type MachineInfo = z.infer<typeof machineSchema>;

/** This computer as the machines are listed: always there, nothing to connect or to block. */
export function thisComputerInfo(machineId: string, name: string): MachineInfo {
  return {
    machineId,
    name,
    destination: null,
    source: 'this-computer',
    state: 'this-computer',
    reason: null,
    message: null,
    fingerprint: null,
    nodeOffer: null,
    since: null,
    log: [],
    workspace: null,
  };
}

const machineId = z.string().min(1).max(400);

/** The containers Baton started for attempts, the engine it starts them with, and the settings of that. */
const containersResult = z.object({
  /** The engine found ("podman (/usr/bin/podman)"), or null with why not in `problem`. */
  engine: z.string().nullable(),
  problem: z.string().nullable(),
  /** The setting: which engine ('' the first of podman and docker on the PATH), and options added to each `run`. */
  settings: z.object({ engine: z.enum(['', 'podman', 'docker']), runOptions: z.string() }),
  containers: z.array(
    z.object({
      name: z.string(),
      attemptId: z.string(),
      conversationId: z.string(),
      /** The attempt's copy, mounted in it. */
      copy: z.string(),
      running: z.boolean(),
      /** Its copy is gone (a crash between the two removals): listed for the person to remove. */
      leftBehind: z.boolean(),
    }),
  ),
});
export type ContainersInfo = z.infer<typeof containersResult>;

/** The machines' requests of the host API contract. */
export const machineRequests = {
  /** Every machine: this computer, the ones added in Baton, the `Host` entries of the ssh config. */
  listMachines: {
    params: z.object({}),
    result: z.object({ machines: z.array(machineSchema) }),
  },
  /** Adds a machine by `user@host[:port]` or an alias of the ssh config (not connected yet). */
  addMachine: {
    params: z.object({ destination: z.string().min(1).max(300) }),
    result: z.object({ machine: machineSchema }),
  },
  /** Adds a machine reached by a command that runs a program there (`podman exec -i baton-dev`), called `name` (not connected yet). */
  addCommandMachine: {
    params: z.object({ name: z.string().min(1).max(60), command: z.string().min(1).max(1000) }),
    result: z.object({ machine: machineSchema }),
  },
  /** Removes an added machine; Baton's connection to it, and what ran there, end. */
  removeMachine: {
    params: z.object({ machineId }),
    result: z.object({ machines: z.array(machineSchema) }),
  },
  /**
   * Connects to the machine (again, when it was blocked: the person tests it). Answers with its
   * state: blocked with the reason (and the offered key's fingerprint) rather than an error.
   */
  connectMachine: {
    params: z.object({ machineId }),
    result: z.object({ machine: machineSchema }),
  },
  /** Trusts the host key the machine offered, the one whose fingerprint the person was shown, then connects. */
  trustMachineKey: {
    params: z.object({ machineId, fingerprint: z.string().min(1).max(200) }),
    result: z.object({ machine: machineSchema }),
  },
  /** The containers Baton started for attempts (left behind by a crash too), and the engine's settings. */
  listContainers: { params: z.object({}), result: containersResult },
  /** Sets which engine starts containers and the options added to each; answers as listContainers. */
  setContainerSettings: {
    params: z.object({ engine: z.enum(['', 'podman', 'docker']).optional(), runOptions: z.string().max(2000).optional() }),
    result: containersResult,
  },
  /** Removes a container Baton started (the person asked: one left behind); answers as listContainers. */
  removeContainer: { params: z.object({ name: z.string().min(1).max(200) }), result: containersResult },
  /** Whether a folder here has a dev container (`.devcontainer/devcontainer.json` or `.devcontainer.json`): its config, or null. */
  devContainerOf: { params: z.object({ folder: z.string().min(1).max(4096) }), result: z.object({ config: z.string().nullable() }) },
  /**
   * Opens a folder on this computer in its dev container (`devcontainer up` with the engine of
   * Settings › Machines): its machine (blocked, with the CLI's words, when it could not), and where
   * the folder is in it.
   */
  openDevContainer: {
    params: z.object({ folder: z.string().min(1).max(4096) }),
    result: z.object({ machine: machineSchema, workspace: z.string().nullable() }),
  },
  /** Uploads the Node offered to a machine blocked for having none (fetched from the npm registry here), then connects. */
  uploadNodeToMachine: {
    params: z.object({ machineId }),
    result: z.object({ machine: machineSchema }),
  },
} as const;
