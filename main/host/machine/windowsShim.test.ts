import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { findExecutable } from './findExecutable.js';
import { ptyProgram } from '../process/pty.js';
import { quoteForCmd, windowsShimLaunch } from './windowsShim.js';

describe('Windows .cmd shims', () => {
  it('are found through PATH (split on ";") and PATHEXT, without an execute bit', () => {
    const root = tempDir('win-path');
    const [first, second] = [path.join(root, 'a'), path.join(root, 'b')];
    mkdirSync(first);
    mkdirSync(second);
    writeFileSync(path.join(second, 'claude-agent-acp.cmd'), '@echo off\r\n');
    const env = { Path: `${first};${second}`, PATHEXT: '.COM;.EXE;.BAT;.CMD' };
    expect(findExecutable('claude-agent-acp', env, 'win32')).toBe(path.join(second, 'claude-agent-acp.cmd'));
    // The same file is not a command on a POSIX system: no execute bit, and ";" does not split PATH there.
    expect(findExecutable('claude-agent-acp', env, 'linux')).toBeUndefined();
  });

  it('a POSIX executable still needs its execute bit', () => {
    const dir = tempDir('posix-path');
    const file = path.join(dir, 'agent');
    writeFileSync(file, '#!/bin/sh\n');
    expect(findExecutable('agent', { PATH: dir }, 'linux')).toBeUndefined();
    chmodSync(file, 0o755);
    expect(findExecutable('agent', { PATH: dir }, 'linux')).toBe(file);
  });

  it('run through cmd.exe with every argument escaped; other launches are unchanged', () => {
    const spec = {
      command: 'C:\\Program Files\\nodejs\\claude-agent-acp.cmd',
      args: ['--flag', 'a & calc', '50%'],
      env: { ComSpec: 'C:\\Windows\\system32\\cmd.exe' },
      cwd: 'C:\\work',
    };
    expect(windowsShimLaunch(spec, 'win32')).toEqual({
      ...spec,
      command: 'C:\\Windows\\system32\\cmd.exe',
      args: ['/d', '/s', '/c', '""C:\\Program Files\\nodejs\\claude-agent-acp.cmd" ^^^"--flag^^^" ^^^"a ^^^& calc^^^" ^^^"50^^^%^^^""'],
      verbatimArguments: true,
    });
    expect(windowsShimLaunch({ ...spec, command: 'C:\\bin\\agent.exe' }, 'win32').command).toBe('C:\\bin\\agent.exe');
    expect(windowsShimLaunch(spec, 'linux')).toBe(spec);
  });

  it('quotes for the program before escaping for cmd', () => {
    expect(quoteForCmd('say "hi"', false)).toBe('^"say \\^"hi\\^"^"');
    expect(quoteForCmd('C:\\dir\\', false)).toBe('^"C:\\dir\\\\^"');
  });
});

describe('pseudo-terminals for terminal log-ins', () => {
  it('come from script on Linux and macOS; Windows has none', () => {
    expect(ptyProgram({ PATH: '/usr/bin:/bin' }, 'linux')).toMatch(/\/script$/);
    expect(ptyProgram({ PATH: '/usr/bin:/bin' }, 'win32')).toBeUndefined();
  });
});
