/**
 * A machine reached by a command that runs a program there with standard input and output, as
 * the person would type it: `podman exec -i baton-dev`, `docker exec -i baton-dev`,
 * `kubectl exec -i my-pod --`, `wsl.exe -d Debian --`. Baton appends `sh -c <script>` to it. The
 * same machine server as over ssh runs through it (see `RelayedMachine`), so everything an SSH
 * machine does works there too, reconnects included: a command whose client dies is run again.
 * A terminal is never asked for (`-t` breaks standard input and output, and is refused).
 */
import { InvalidRequestError, MachineBlockedError } from '../../../app/errors.js';
import { RelayedMachine, runToEnd, type Carrier, type RelayedOptions } from './RelayedMachine.js';

/** What a command machine's id starts with; its name follows. */
const COMMAND_ID = 'cmd:';

/** The id of the command machine called `name`. */
export function commandMachineId(name: string): string {
  return `${COMMAND_ID}${name}`;
}

/** The name a command machine's id names ('' for an id of any other machine). */
export function nameOfCommandId(machineId: string): string {
  return machineId.startsWith(COMMAND_ID) ? machineId.slice(COMMAND_ID.length) : '';
}

/**
 * The words of a command as the person typed it (double and single quotes group, a backslash
 * escapes); refused with why when it is empty, unbalanced, or asks for a terminal.
 */
export function commandWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index]!;
    if (quote) {
      if (char === quote) {
        quote = undefined;
      } else if (char === '\\' && quote === '"' && index + 1 < command.length) {
        index += 1;
        word += command[index]!;
      } else {
        word += char;
      }
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= '';
    } else if (char === '\\' && index + 1 < command.length) {
      index += 1;
      word = (word ?? '') + command[index]!;
    } else if (/\s/.test(char)) {
      if (word !== undefined) {
        words.push(word);
        word = undefined;
      }
    } else {
      word = (word ?? '') + char;
    }
  }
  if (quote) {
    throw new InvalidRequestError(`The command "${command}" has a ${quote} that is not closed.`);
  }
  if (word !== undefined) {
    words.push(word);
  }
  if (words.length === 0) {
    throw new InvalidRequestError('A command that reaches the machine is needed, for example: podman exec -i baton-dev');
  }
  // Options before the container (or pod) is named: a terminal there (-t, --tty, -it) breaks the channel.
  if (words.some((each) => each === '--tty' || each.startsWith('--tty=') || /^-[A-Za-z]*t[A-Za-z]*$/.test(each))) {
    throw new InvalidRequestError(
      `The command "${command}" asks for a terminal (-t); Baton talks to the machine over standard input and output, which a terminal breaks. Use -i alone (for example: podman exec -i baton-dev).`,
    );
  }
  return words;
}

/** How to reach a machine by a command, and what opening it takes. */
export type CommandOptions = Omit<RelayedOptions, 'machineId' | 'pathOf'> & {
  /** The command, as typed (`podman exec -i baton-dev`). */
  command: string;
  /** Its id (default: that of the command machine called `name`; a container Baton started has its own). */
  machineId?: string;
};

/** Runs a script there through the command; what it printed, or a block saying why it could not. */
async function runThrough(words: string[], options: CommandOptions, script: string, input?: Buffer): Promise<string> {
  const child = options.local.spawn({
    command: words[0]!,
    args: [...words.slice(1), 'sh', '-c', script],
    env: { ...options.local.env },
    cwd: options.local.home,
  });
  const { exit, stdout, stderr } = await runToEnd(
    child,
    input,
    (error) =>
      new MachineBlockedError(
        options.name,
        'unreachable',
        error.code === 'ENOENT'
          ? `${words[0]} was not found on this computer's PATH; install it, or give its full path in ${options.name}'s command.`
          : `${words[0]} could not be started on this computer: ${error.message}`,
      ),
  );
  if (exit.code !== 0) {
    const said = stderr.trim().split('\n').at(-1) || `it exited with ${exit.code ?? exit.signal}`;
    throw new MachineBlockedError(options.name, 'unreachable', `${options.name} could not be reached with "${options.command}": ${said}`);
  }
  return stdout;
}

/** A machine reached by a command, its server durable: the agents there outlive a command that ended. */
export class CommandMachine extends RelayedMachine {
  /** Opens it: Node there (or the one offered), the server uploaded and started; rejects with a block saying why. */
  static async open(options: CommandOptions): Promise<CommandMachine> {
    const words = commandWords(options.command);
    const carrier: Carrier = {
      name: words[0]!,
      run: (script, input) => runThrough(words, options, script, input),
      channel: (script) =>
        options.local.spawn({
          command: words[0]!,
          args: [...words.slice(1), 'sh', '-c', script],
          env: { ...options.local.env },
          cwd: options.local.home,
        }),
      close: () => Promise.resolve(),
    };
    const machineId = options.machineId ?? commandMachineId(options.name);
    return RelayedMachine.openOver(
      carrier,
      { ...options, machineId, pathOf: `where "${options.command}" runs programs` },
      (serverScript) => new CommandMachine(machineId, options.name, carrier, serverScript),
    );
  }
}
