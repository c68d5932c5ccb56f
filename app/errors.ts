/**
 * Typed, serialisable errors shared by host and renderer. Every error that crosses a boundary
 * carries a stable `code`; the receiving side rebuilds the class from the code, never from the
 * message text.
 */
import { z } from 'zod';

/** Codes of every error Baton raises on purpose. */
export const errorCodes = [
  'AgentNotInstalled',
  'AgentFailedToStart',
  'AgentExited',
  'AgentError',
  'AuthRequired',
  'ProtocolError',
  'UnsupportedInput',
  'ConcurrencyError',
  'NotFound',
  'InvalidRequest',
  'TurnInProgress',
  'StoreError',
  'DataDirInUse',
  'AgentInstallFailed',
  'InjectorUnavailable',
  'ImportNotConfirmed',
  'UnverifiedDownload',
  'PinnedVersionMissing',
  'AgentTooOld',
  'WorkingFolderMissing',
  'MachineBlocked',
  'Internal',
] as const;

/** One of {@link errorCodes}. */
export type ErrorCode = (typeof errorCodes)[number];

/** The wire form of a {@link BatonError}. */
export const wireErrorSchema = z.object({
  code: z.enum(errorCodes),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** The wire form of a {@link BatonError}. */
export type WireError = z.infer<typeof wireErrorSchema>;

/** Base of every typed error. `details` must be JSON-serialisable. */
export class BatonError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = code;
    this.code = code;
    this.details = details;
  }

  /** The JSON form sent across the host API. */
  toWire(): WireError {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** The agent's executable could not be found. */
export class AgentNotInstalledError extends BatonError {
  constructor(agentName: string, command: string, hint?: string) {
    super('AgentNotInstalled', `${agentName} is not installed: "${command}" was not found on PATH.${hint ? ` ${hint}` : ''}`, {
      agentName,
      command,
    });
  }
}

/** The conversation's working folder is gone, so its agent cannot be started there (not a missing agent). */
export class WorkingFolderMissingError extends BatonError {
  constructor(agentName: string, folder: string) {
    super(
      'WorkingFolderMissing',
      `${agentName} cannot start: the conversation's working folder ${folder} does not exist any more (moved or removed).`,
      { agentName, folder },
    );
  }
}

/** Why a machine cannot be reached until the person acts (never retried on its own). */
export type MachineBlockedReason = 'host-key-unknown' | 'host-key-changed' | 'authentication' | 'unreachable' | 'no-node' | 'server';

/**
 * A machine Baton cannot use until the person does something: trust its host key, fix the key that
 * changed, give a key it accepts, install Node there. The message names the machine and the reason.
 */
export class MachineBlockedError extends BatonError {
  constructor(
    readonly machineName: string,
    readonly reason: MachineBlockedReason,
    message: string,
    extra: Record<string, unknown> = {},
  ) {
    super('MachineBlocked', message, { machineName, reason, ...extra });
  }
}

/** The agent process started but did not complete the ACP handshake. */
export class AgentFailedToStartError extends BatonError {
  constructor(agentName: string, reason: string, stderrTail?: string) {
    super('AgentFailedToStart', `${agentName} failed to start: ${reason}`, {
      agentName,
      reason,
      ...(stderrTail ? { stderrTail } : {}),
    });
  }
}

/** The agent process exited while Baton needed it. */
export class AgentExitedError extends BatonError {
  constructor(agentName: string, exit: string, stderrTail?: string) {
    super('AgentExited', `${agentName} exited unexpectedly (${exit}).`, {
      agentName,
      exit,
      ...(stderrTail ? { stderrTail } : {}),
    });
  }
}

/** The agent answered a request with an error of its own (its model failed, it refused). */
export class AgentError extends BatonError {
  constructor(agentName: string, reason: string, rpcCode?: number) {
    super('AgentError', `${agentName} reported an error: ${reason}`, {
      agentName,
      reason,
      ...(rpcCode === undefined ? {} : { rpcCode }),
    });
  }
}

/** A way an agent offers to log in. `terminal` methods need a terminal Baton does not offer yet. */
export type AuthMethodInfo = { id: string; name: string; description?: string; terminal?: boolean };

/** The agent needs the person to log in before it can work; `methods` are the ways it offers. */
export class AuthRequiredError extends BatonError {
  constructor(agentName: string, methods: AuthMethodInfo[]) {
    super('AuthRequired', `${agentName} needs you to log in before it can answer.`, {
      agentName,
      methods,
    });
  }
}

/** The agent broke the protocol (malformed message, unexpected error response). */
export class ProtocolError extends BatonError {
  constructor(agentName: string, reason: string) {
    super('ProtocolError', `${agentName} sent something Baton could not understand: ${reason}`, {
      agentName,
      reason,
    });
  }
}

/** The agent cannot take an input; Baton refuses rather than substitute. */
export class UnsupportedInputError extends BatonError {
  constructor(agentName: string, input: string, reason: string) {
    super('UnsupportedInput', `${agentName} cannot take ${input}: ${reason}`, {
      agentName,
      input,
      reason,
    });
  }
}

/** A writer appended with a stale expected sequence number. */
export class ConcurrencyError extends BatonError {
  constructor(conversationId: string, expectedSeq: number, actualSeq: number) {
    super(
      'ConcurrencyError',
      `Conversation ${conversationId} changed underneath this writer (expected seq ${expectedSeq}, found ${actualSeq}).`,
      { conversationId, expectedSeq, actualSeq },
    );
  }
}

/** A referenced object does not exist. */
export class NotFoundError extends BatonError {
  constructor(what: string, id: string) {
    super('NotFound', `No ${what} with id ${id}.`, { what, id });
  }
}

/** A request was malformed or not allowed. */
export class InvalidRequestError extends BatonError {
  constructor(reason: string) {
    super('InvalidRequest', reason);
  }
}

/** A turn is already running in the conversation. */
export class TurnInProgressError extends BatonError {
  constructor(conversationId: string) {
    super('TurnInProgress', 'A reply is still being written in this conversation; stop it or wait.', {
      conversationId,
    });
  }
}

/** The transcript store could not read or write. */
export class StoreError extends BatonError {
  constructor(reason: string, details?: Record<string, unknown>) {
    super('StoreError', reason, details);
  }
}

/** Another running Baton holds the data folder. */
export class DataDirInUseError extends BatonError {
  constructor(dataDir: string, pid: number | undefined) {
    const who = pid === undefined ? 'Another Baton' : `Another Baton (process ${pid})`;
    super(
      'DataDirInUse',
      `${who} is already using the data folder ${dataDir}. Switch to it, or start this one with a different data folder.`,
      { dataDir, ...(pid === undefined ? {} : { pid }) },
    );
  }
}

/** Installing, updating or removing an agent in Baton's agents folder failed; nothing that worked before was touched. */
export class AgentInstallFailedError extends BatonError {
  constructor(agentName: string, action: 'install' | 'update' | 'remove', reason: string, outputTail?: string) {
    super('AgentInstallFailed', `Could not ${action} ${agentName}: ${reason}`, {
      agentName,
      action,
      ...(outputTail ? { stderrTail: outputTail } : {}),
    });
  }
}

/** A conversation selected an injector that cannot be used (unknown, vanished, or a file it names is refused). */
export class InjectorUnavailableError extends BatonError {
  constructor(name: string, reason: string) {
    super('InjectorUnavailable', `The injector "${name}" cannot be used: ${reason}`, { name, reason });
  }
}

/** An imported conversation's folder and settings have not been confirmed yet: nothing of it reaches an agent until they are. */
export class ImportNotConfirmedError extends BatonError {
  constructor(conversationId: string) {
    super(
      'ImportNotConfirmed',
      'This conversation was imported. Before anything in it reaches an agent, confirm its working folder and the instructions, injectors and toolbox it brings.',
      { conversationId },
    );
  }
}

/** An agent's archive has no checksum to check it against: installed only once the person agrees, knowing why. */
export class UnverifiedDownloadError extends BatonError {
  constructor(agentName: string, agentId: string, url: string) {
    super(
      'UnverifiedDownload',
      `The registry gives no checksum for ${agentName}'s archive, so Baton cannot check that what it downloads from ${url} is what the registry lists. Install it only if you trust that address.`,
      { agentName, agentId, url },
    );
  }
}

/**
 * The npm registry has no copy of the version the ACP Registry lists for an agent (it was never
 * published, or was taken down), but has newer ones: the nearest newer is offered, installed only
 * once the person agrees. `versions`: the newer ones it has, oldest first.
 */
export class PinnedVersionMissingError extends BatonError {
  constructor(agentName: string, agentId: string, spec: string, versions: readonly string[]) {
    const nearest = versions[0]!;
    const named = versions.length > 6 ? [...versions.slice(0, 5), `… ${versions.at(-1)!}`] : versions;
    super(
      'PinnedVersionMissing',
      `The npm registry has no ${spec}, the version the ACP Registry lists for ${agentName}. It has ${named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} and ${named.at(-1)!}`} after it. Install ${nearest}, the nearest newer one?`,
      { agentName, agentId, spec, nearest, versions: [...versions] },
    );
  }
}

/**
 * The agent that would run is older than the oldest release Baton supports, and what it would be
 * given (the person's instructions) needs that release: the turn is refused with Update as the way out.
 */
export class AgentTooOldError extends BatonError {
  constructor(agentName: string, agentId: string, version: string, oldestSupported: string, input: string) {
    super(
      'AgentTooOld',
      `${agentName} ${version} cannot take ${input}: Baton delivers them to ${agentName} ${oldestSupported} or later, and an older one would lose them silently. Update ${agentName}, or send without them.`,
      { agentName, agentId, version, oldestSupported, input },
    );
  }
}

/** Something Baton did not expect (a bug, or a failure with no typed error of its own). */
export class InternalError extends BatonError {
  constructor(message: string) {
    super('Internal', message);
  }
}

/** Wraps anything unexpected so it can cross a boundary without its stack. */
export function toWireError(error: unknown): WireError {
  if (error instanceof BatonError) {
    return error.toWire();
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'Internal', message };
}

/** The class of each code: a missing or extra code fails to compile. */
export const errorClasses: { readonly [C in ErrorCode]: abstract new (...args: never[]) => BatonError } = {
  AgentNotInstalled: AgentNotInstalledError,
  AgentFailedToStart: AgentFailedToStartError,
  AgentExited: AgentExitedError,
  AgentError: AgentError,
  AuthRequired: AuthRequiredError,
  ProtocolError: ProtocolError,
  UnsupportedInput: UnsupportedInputError,
  ConcurrencyError: ConcurrencyError,
  NotFound: NotFoundError,
  InvalidRequest: InvalidRequestError,
  TurnInProgress: TurnInProgressError,
  StoreError: StoreError,
  DataDirInUse: DataDirInUseError,
  AgentInstallFailed: AgentInstallFailedError,
  InjectorUnavailable: InjectorUnavailableError,
  ImportNotConfirmed: ImportNotConfirmedError,
  UnverifiedDownload: UnverifiedDownloadError,
  PinnedVersionMissing: PinnedVersionMissingError,
  AgentTooOld: AgentTooOldError,
  WorkingFolderMissing: WorkingFolderMissingError,
  MachineBlocked: MachineBlockedError,
  Internal: InternalError,
};

/**
 * Rebuilds a typed error on the receiving side of a boundary as its own class (so callers can
 * branch on `instanceof UnsupportedInputError`), with the message and details it was sent with.
 */
export function fromWireError(wire: WireError): BatonError {
  // The base constructor runs with the subclass as its target: the prototype (and so `instanceof`)
  // is the subclass's, while code, message and details are taken as they came, not rebuilt.
  return Reflect.construct(BatonError, [wire.code, wire.message, wire.details], errorClasses[wire.code]) as BatonError;
}
