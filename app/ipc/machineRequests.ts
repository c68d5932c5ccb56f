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
  };
}

const machineId = z.string().min(1).max(400);

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
  /** Uploads the Node offered to a machine blocked for having none (fetched from the npm registry here), then connects. */
  uploadNodeToMachine: {
    params: z.object({ machineId }),
    result: z.object({ machine: machineSchema }),
  },
} as const;
