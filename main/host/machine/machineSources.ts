/**
 * Where the machines come from and how each is shown: the SSH hosts of the person's config (`Host`
 * entries without wildcards), the destinations ssh may be given, the Node packages a host offers,
 * and a machine's view as its connection has it.
 */
import type { MachineBlockedError } from '../../../app/errors.js';
import { nodeOfferSchema, type MachineInfo } from '../../../app/ipc/machineRequests.js';
import { nodePackagesFromFile, type NodePackage } from './nodeForMachines.js';
import type { RelayedMachine } from './RelayedMachine.js';

/**
 * A destination ssh is given: an alias of the person's config, or `user@host` with an optional
 * `:port`. Never anything ssh would read as an option, nor spaces or shell characters.
 */
export const DESTINATION = /^(?:[A-Za-z0-9._-]+@)?(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The `Host` names of an ssh config that name one host (no wildcard, no negation). */
export function configHosts(text: string): string[] {
  const hosts: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*Host\s+(.+?)\s*$/i.exec(line);
    if (!match) {
      continue;
    }
    for (const name of match[1]!.split(/\s+/)) {
      if (name && !/[*?!]/.test(name) && DESTINATION.test(name) && !hosts.includes(name)) {
        hosts.push(name);
      }
    }
  }
  return hosts;
}

/** How a host reaches SSH machines (tests give their own sshd's config, and Node packages of their own). */
export type MachinesSshOptions = {
  configFile?: string;
  knownHosts?: readonly string[];
  bundle?: string;
  idleLimitMs?: number;
  /** The Node packages Baton may upload to a machine with none (default: the ones it ships the digests of). */
  nodePackages?: Readonly<Record<string, NodePackage>>;
};

/** The Node packages a host offers: given, named by `BATON_NODE_PACKAGES`, or (nothing here) the ones Baton ships. */
export function nodePackagesOf(
  given: Readonly<Record<string, NodePackage>> | undefined,
  file: string | undefined,
  log: (message: string) => void,
): { nodePackages?: Readonly<Record<string, NodePackage>> } {
  if (given) {
    return { nodePackages: given };
  }
  if (!file) {
    return {};
  }
  try {
    return { nodePackages: nodePackagesFromFile(file) };
  } catch (error) {
    log(`BATON_NODE_PACKAGES is not used: ${(error as Error).message}. Baton offers the Node it ships the digests of.`);
    return {};
  }
}

/** One machine's connection (over ssh or a command), while Baton holds it. */
export type Held = {
  opening?: Promise<RelayedMachine>;
  machine?: RelayedMachine;
  /** The last reason it could not be opened (kept until the next try). */
  blocked?: MachineBlockedError;
  reconnecting?: { since: number; why: string };
  /** What a slow step of the opening under way is doing (fetching or uploading Node). */
  progress?: string;
  /** The person agreed to upload Node there: the next opening does. */
  uploadNode?: boolean;
  /** Where each agent command is on that machine's PATH (undefined: not there), found when it was opened. */
  executables?: Map<string, string | undefined>;
  /** A dev container's: the output of `devcontainer up` (its last lines), and where the workspace is in it. */
  log?: string[];
  workspace?: string;
};

/** What a machine is, besides its connection: its id, destination (a command machine's name, with its `command`), and source. */
export type MachineWhere = {
  machineId: string;
  destination: string;
  source: 'ssh-config' | 'added' | 'command';
  command?: string | undefined;
};

/** A machine's view: where it is, and its state as its connection has it. */
export function heldView(held: Held | undefined, { machineId, destination, source, command }: MachineWhere): MachineInfo {
  const blocked = held?.blocked;
  const state: MachineInfo['state'] = held?.reconnecting
    ? 'reconnecting'
    : held?.machine
      ? 'connected'
      : held?.opening
        ? 'connecting'
        : blocked
          ? 'blocked'
          : 'not-connected';
  const fingerprint = blocked?.details?.fingerprint;
  const offer = nodeOfferSchema.safeParse(blocked?.details?.nodeOffer);
  return {
    machineId,
    name: destination,
    destination: source === 'command' ? (command ?? null) : destination,
    source,
    state,
    reason: state === 'blocked' ? (blocked?.reason ?? null) : null,
    message:
      state === 'blocked'
        ? (blocked?.message ?? null)
        : state === 'reconnecting'
          ? (held?.reconnecting?.why ?? null)
          : state === 'connecting'
            ? (held?.progress ?? null)
            : null,
    fingerprint: state === 'blocked' && typeof fingerprint === 'string' ? fingerprint : null,
    nodeOffer: state === 'blocked' && offer.success ? offer.data : null,
    since: state === 'reconnecting' ? (held?.reconnecting?.since ?? null) : null,
    log: held?.log ?? [],
    workspace: held?.workspace ?? null,
  };
}
