/**
 * A whole command line pasted where a server's command goes ("node /path/index.js"): split into
 * the program and its arguments by the shell's quoting rules (spaces separate words; '…' is
 * literal; "…" keeps spaces and takes \" and \\; a backslash outside quotes escapes the next
 * character). What only a shell does (pipes, redirections, `;`, `&&`, substitutions) is refused
 * with the reason: Baton starts the program itself, never through a shell.
 */

/** The program and its arguments, or why the line cannot be split. */
export type CommandLineSplit = { command: string; args: string[] } | { problem: string };

const SHELL_ONLY = new Set(['|', '&', ';', '<', '>', '(', ')', '`']);

/** Splits `line` into words as a POSIX shell would, refusing what only a shell does. */
export function splitCommandLine(line: string): CommandLineSplit {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index]!;
    if (char === "'") {
      const end = line.indexOf("'", index + 1);
      if (end < 0) {
        return { problem: "A quote (') is not closed." };
      }
      word += line.slice(index + 1, end);
      inWord = true;
      index = end;
    } else if (char === '"') {
      let end = index + 1;
      for (; end < line.length && line[end] !== '"'; end += 1) {
        if (line[end] === '\\' && ['"', '\\', '$', '`'].includes(line[end + 1] ?? '')) {
          end += 1;
        } else if (line[end] === '$' || line[end] === '`') {
          return { problem: 'It substitutes a value ($ or `), which only a shell does: write the value itself.' };
        }
        word += line[end];
      }
      if (end >= line.length) {
        return { problem: 'A quote (") is not closed.' };
      }
      inWord = true;
      index = end;
    } else if (char === '\\') {
      word += line[index + 1] ?? '';
      inWord = true;
      index += 1;
    } else if (/\s/.test(char)) {
      if (inWord) {
        words.push(word);
      }
      word = '';
      inWord = false;
    } else if (SHELL_ONLY.has(char) || char === '$') {
      return {
        problem: `It uses the shell's "${char === '$' ? '$' : char}", and Baton starts the program itself, not through a shell: put the line in a script and give the script as the command.`,
      };
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) {
    words.push(word);
  }
  const [command, ...args] = words;
  return command === undefined ? { problem: 'There is no command.' } : { command, args };
}
