import { describe, expect, it } from 'vitest';
import { splitCommandLine } from './commandLine.js';

describe('splitCommandLine', () => {
  it("splits a pasted command line into the program and its arguments, with the shell's quoting", () => {
    expect(splitCommandLine('node /path/index.js')).toEqual({ command: 'node', args: ['/path/index.js'] });
    expect(splitCommandLine(`  npx -y "@scope/server name" --root '/my files/x'  `)).toEqual({
      command: 'npx',
      args: ['-y', '@scope/server name', '--root', '/my files/x'],
    });
    expect(splitCommandLine('python3 -m my\\ server "say \\"hi\\""')).toEqual({
      command: 'python3',
      args: ['-m', 'my server', 'say "hi"'],
    });
    expect(splitCommandLine('uvx')).toEqual({ command: 'uvx', args: [] });
  });

  it('refuses what only a shell does, and lines it cannot read, with the reason', () => {
    expect(splitCommandLine('node a.js | tee log')).toEqual({ problem: expect.stringContaining('"|"') });
    expect(splitCommandLine('cd x && node a.js')).toEqual({ problem: expect.stringContaining('"&"') });
    expect(splitCommandLine('node $HOME/a.js')).toEqual({ problem: expect.stringContaining('"$"') });
    expect(splitCommandLine('node "$HOME/a.js"')).toEqual({ problem: expect.stringContaining('substitutes') });
    expect(splitCommandLine('node "a.js')).toEqual({ problem: 'A quote (") is not closed.' });
    expect(splitCommandLine('   ')).toEqual({ problem: 'There is no command.' });
  });
});
