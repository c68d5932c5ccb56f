/**
 * The machines reached by a command that the person added (Settings › Machines, "Add container"):
 * each a name and a command, kept as a setting. Names are what the Machine combobox shows.
 */
import { z } from 'zod';
import { InvalidRequestError } from '../../../app/errors.js';
import { commandWords } from './CommandMachine.js';

/** The setting that keeps them. */
export const COMMANDS_SETTING = 'machines.commands';

/** One machine reached by a command. */
export type CommandEntry = { name: string; command: string };

const entriesSchema = z.array(z.object({ name: z.string(), command: z.string() }));

/** A name: what the person calls it, shown as it is; no control characters, at most 60 characters. */
const NAME = /^[^\p{Cc}]{1,60}$/u;

/** The entries of the setting that are still usable (a hand-edited one that is not is left out). */
export function commandEntries(value: unknown): CommandEntry[] {
  const parsed = entriesSchema.safeParse(value ?? []);
  if (!parsed.success) {
    return [];
  }
  return parsed.data.filter((entry) => {
    try {
      return NAME.test(entry.name) && commandWords(entry.command).length > 0;
    } catch {
      return false;
    }
  });
}

/** The entries with one more; refused with why when the name is taken (by any machine) or the name or command will not do. */
export function withCommand(entries: readonly CommandEntry[], name: string, command: string, taken: readonly string[]): CommandEntry[] {
  const wanted = name.trim();
  if (!NAME.test(wanted)) {
    throw new InvalidRequestError('A machine needs a name of 1 to 60 characters.');
  }
  if (taken.includes(wanted) || wanted === 'This computer') {
    throw new InvalidRequestError(`There is already a machine called "${wanted}"; give this one another name.`);
  }
  commandWords(command);
  return [...entries, { name: wanted, command: command.trim() }];
}
