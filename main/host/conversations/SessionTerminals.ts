/**
 * The agent's client terminals (`terminal/create`, `output`, `wait_for_exit`, `kill`,
 * `release`) for one session. Each command runs in its own process group with stdin closed; its
 * combined output is kept up to the agent's byte limit (truncated from the start, at a character
 * boundary). What the person sees is recorded in the transcript as `terminal.*` events, bounded
 * per terminal. Releasing a terminal, or ending the session, ends its whole process group.
 */
import { StringDecoder } from 'node:string_decoder';
import type { EventDraft } from '../../../app/events/index.js';
import { newId } from '../../../app/ids.js';
import { pathsOf, type Machine, type MachineProcess } from '../machine/Machine.js';
import { shellWord } from '../process/shellWord.js';
import { isInside } from '../files/isInside.js';

/** What the agent asks to run. */
export type TerminalRequest = {
  command: string;
  args?: readonly string[] | undefined;
  env?: ReadonlyArray<{ name: string; value: string }> | undefined;
  cwd?: string | null | undefined;
  outputByteLimit?: number | null | undefined;
};

/** How a terminal's command ended. */
export type TerminalExit = { exitCode: number | null; signal: string | null };

/** A terminal's output so far, as `terminal/output` answers it. */
export type TerminalOutput = { output: string; truncated: boolean; exitStatus: TerminalExit | null };

/** Why a terminal request was refused; the message goes back to the agent. */
export class TerminalError extends Error {
  constructor(
    message: string,
    readonly kind: 'not-found' | 'invalid' | 'failed',
  ) {
    super(message);
  }
}

/** Output kept for the agent when it sets no limit. */
const DEFAULT_OUTPUT_LIMIT = 1024 * 1024;
/** The most output kept for the agent, whatever limit it asks for. */
const MAX_OUTPUT_LIMIT = 16 * 1024 * 1024;
/** Output recorded in the transcript per terminal; the rest is counted, not kept. */
const RECORDED_OUTPUT_LIMIT = 256 * 1024;
/** Recorded output is gathered for this long, so a chatty command writes few events. */
const RECORD_INTERVAL_MS = 100;
/** Terminals one session may hold at once. */
const MAX_TERMINALS = 64;

/** Length of an incomplete UTF-8 sequence at the end of `bytes` (0 when it ends on a boundary). */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) {
      continue;
    }
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}

/** A byte buffer that keeps the newest `limit` bytes and reads back as whole characters. */
export class OutputBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** True once bytes were dropped from the start. */
  truncated = false;

  constructor(private readonly limit: number) {}

  /** Adds bytes, dropping the oldest beyond the limit. */
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit) {
      const all = Buffer.concat(this.chunks);
      this.chunks = [all.subarray(all.length - this.limit)];
      this.size = this.limit;
      this.truncated = true;
    }
  }

  /** The kept bytes as text: never starts or ends inside a character. */
  text(): string {
    let bytes = Buffer.concat(this.chunks);
    let start = 0;
    while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) {
      start += 1;
    }
    bytes = bytes.subarray(start);
    return bytes.subarray(0, bytes.length - incompleteTail(bytes)).toString('utf8');
  }
}

type Terminal = {
  terminalId: string;
  process: MachineProcess;
  output: OutputBuffer;
  exit: TerminalExit | undefined;
  exited: Promise<TerminalExit>;
  /** Transcript recording: decoded text waiting to be written, and how much was written. */
  decoder: StringDecoder;
  pending: string;
  recorded: number;
  recordTruncated: boolean;
  timer: NodeJS.Timeout | undefined;
};

/** The terminals of one session. */
export class SessionTerminals {
  private readonly terminals = new Map<string, Terminal>();
  /** Terminals the agent runs itself and reports (`_meta.terminal_output`): how much was recorded. */
  private readonly reported = new Map<string, { recorded: number; truncated: boolean }>();

  constructor(
    private readonly options: {
      /** The session's folder: the default working directory. */
      cwd: string;
      /** The folders a command may run in (the session's folder when not given). */
      roots?: readonly string[];
      /** Takes known secrets out of the output the agent is given (and so its model). */
      redact?(text: string): string;
      /** The environment commands start from (the agent's own). */
      env: Readonly<Record<string, string>>;
      /** The machine commands run on (the agent's). */
      machine: Machine;
      /** Records transcript events. */
      record(drafts: EventDraft[]): void;
      /** The turn running now, if any. */
      turnId(): string | undefined;
    },
  ) {}

  /** Starts a command; resolves with its terminal id once it runs. */
  async create(request: TerminalRequest): Promise<string> {
    if (this.terminals.size >= MAX_TERMINALS) {
      throw new TerminalError(`This session already has ${MAX_TERMINALS} terminals; release some first.`, 'invalid');
    }
    if (!request.command.trim()) {
      throw new TerminalError('The command is empty.', 'invalid');
    }
    const cwd = request.cwd ?? this.options.cwd;
    const { machine } = this.options;
    const paths = pathsOf(machine);
    if (!paths.isAbsolute(cwd)) {
      throw new TerminalError(`The working directory must be an absolute path: ${cwd}`, 'invalid');
    }
    // Looked at on the machine the command runs on.
    if ((await machine.stat(cwd).catch(() => undefined))?.kind !== 'folder') {
      throw new TerminalError(`The working directory does not exist: ${cwd}`, 'invalid');
    }
    // Like file access, commands run inside the conversation's folders only (symlinks resolved).
    const real = await machine.realpath(cwd);
    const roots = await Promise.all((this.options.roots ?? [this.options.cwd]).map((root) => machine.realpath(root)));
    if (!roots.some((root) => isInside(root, real, paths.sep))) {
      throw new TerminalError(
        `The working directory ${cwd} is outside this conversation's folder (${roots.join(', ')}); commands run only inside it.`,
        'invalid',
      );
    }
    const args = request.args ?? [];
    const env = { ...this.options.env, ...Object.fromEntries((request.env ?? []).map(({ name, value }) => [name, value])) };
    const limit = Math.min(Math.max(request.outputByteLimit ?? DEFAULT_OUTPUT_LIMIT, 0), MAX_OUTPUT_LIMIT);
    const child = this.options.machine.spawn({ command: request.command, args, env, cwd });
    try {
      await child.spawned();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new TerminalError(
        code === 'ENOENT' ? `Command not found: ${request.command}` : `Could not start ${request.command}: ${(error as Error).message}`,
        'failed',
      );
    }
    child.stdin.end();
    const terminalId = `term-${newId()}`;
    const terminal: Terminal = {
      terminalId,
      process: child,
      output: new OutputBuffer(limit),
      exit: undefined,
      exited: child.exited.then(({ code, signal }) => ({ exitCode: code, signal })),
      decoder: new StringDecoder('utf8'),
      pending: '',
      recorded: 0,
      recordTruncated: false,
      timer: undefined,
    };
    const turnId = this.options.turnId();
    this.options.record([
      {
        type: 'terminal.started',
        payload: {
          ...(turnId ? { turnId } : {}),
          terminalId,
          command: [request.command, ...args].map(shellWord).join(' '),
          cwd,
          machine: this.options.machine.id,
        },
      },
    ]);
    const onData = (chunk: Buffer): void => {
      terminal.output.push(chunk);
      this.gather(terminal, terminal.decoder.write(chunk));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.terminals.set(terminalId, terminal);
    void terminal.exited.then((exit) => {
      terminal.exit = exit;
      this.finish(terminal);
    });
    return terminalId;
  }

  /** The output so far and, once it ended, how. */
  output(terminalId: string): TerminalOutput {
    const terminal = this.get(terminalId);
    const text = terminal.output.text();
    return {
      output: this.options.redact ? this.options.redact(text) : text,
      truncated: terminal.output.truncated,
      exitStatus: terminal.exit ?? null,
    };
  }

  /** Resolves when the command ends. */
  waitForExit(terminalId: string): Promise<TerminalExit> {
    return this.get(terminalId).exited;
  }

  /** Ends the command (its whole process group); the terminal stays readable until released. */
  async kill(terminalId: string): Promise<void> {
    const terminal = this.get(terminalId);
    await terminal.process.dispose();
  }

  /** Ends the command if it still runs and forgets the terminal. What was recorded stays in the transcript. */
  async release(terminalId: string): Promise<void> {
    const terminal = this.get(terminalId);
    this.terminals.delete(terminalId);
    await terminal.process.dispose();
    await terminal.exited;
  }

  /** Number of terminals held (tests). */
  get size(): number {
    return this.terminals.size;
  }

  /** Ends every terminal's process group (the session is ending). */
  async dispose(): Promise<void> {
    await Promise.all([...this.terminals.keys()].map((terminalId) => this.release(terminalId)));
  }

  /**
   * Keeps the terminal events of commands the agent runs itself within the same bound per
   * terminal as Baton's own; a terminal is announced once. Other drafts pass unchanged.
   */
  boundReported(drafts: EventDraft[]): EventDraft[] {
    return drafts.flatMap((draft): EventDraft[] => {
      if (draft.type === 'terminal.started') {
        if (this.reported.has(draft.payload.terminalId)) {
          return [];
        }
        this.reported.set(draft.payload.terminalId, { recorded: 0, truncated: false });
        return [draft];
      }
      if (draft.type !== 'terminal.output' && draft.type !== 'terminal.exited') {
        return [draft];
      }
      const log = this.reported.get(draft.payload.terminalId) ?? { recorded: 0, truncated: false };
      this.reported.set(draft.payload.terminalId, log);
      if (draft.type === 'terminal.exited') {
        return [{ ...draft, payload: { ...draft.payload, truncated: log.truncated } }];
      }
      const text = draft.payload.text.slice(0, Math.max(RECORDED_OUTPUT_LIMIT - log.recorded, 0));
      log.truncated ||= text.length < draft.payload.text.length;
      log.recorded += text.length;
      return text ? [{ ...draft, payload: { ...draft.payload, text } }] : [];
    });
  }

  private get(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) {
      throw new TerminalError(`No terminal ${terminalId} in this session (it may have been released).`, 'not-found');
    }
    return terminal;
  }

  /** Queues decoded output for the transcript, within the per-terminal bound. */
  private gather(terminal: Terminal, text: string): void {
    if (!text) {
      return;
    }
    const room = RECORDED_OUTPUT_LIMIT - terminal.recorded - terminal.pending.length;
    if (room <= 0) {
      terminal.recordTruncated = true;
      return;
    }
    if (text.length > room) {
      terminal.recordTruncated = true;
    }
    terminal.pending += text.slice(0, room);
    terminal.timer ??= setTimeout(() => this.flush(terminal), RECORD_INTERVAL_MS);
  }

  private flush(terminal: Terminal): void {
    clearTimeout(terminal.timer);
    terminal.timer = undefined;
    if (!terminal.pending) {
      return;
    }
    const text = terminal.pending;
    terminal.pending = '';
    terminal.recorded += text.length;
    this.options.record([{ type: 'terminal.output', payload: { terminalId: terminal.terminalId, text } }]);
  }

  private finish(terminal: Terminal): void {
    this.gather(terminal, terminal.decoder.end());
    this.flush(terminal);
    const exit = terminal.exit ?? { exitCode: null, signal: null };
    this.options.record([
      { type: 'terminal.exited', payload: { terminalId: terminal.terminalId, ...exit, truncated: terminal.recordTruncated } },
    ]);
  }
}
