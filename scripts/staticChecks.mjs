// The static checks of `npm test` (each check is one process busy on one core): ESLint with the
// layer rule, Prettier, and the type checks of the renderer and the tests. The host's own type check
// is the build's `tsc -p tsconfig.node.json`, which fails the build on any error, so it is not run twice.
// `npm test` runs them beside the tests at the lowest priority: they take only the cores the tests
// leave idle (the tests mostly wait on agents), and no test waits for them.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

/** The checks, each a name and the command that passes when it exits 0. */
function staticCheckCommands(root) {
  const bin = (name) => path.join(root, 'node_modules', '.bin', name);
  return [
    // The longest first, so that the short ones fill the other core beside it.
    { name: 'lint (eslint, including the layer rule)', command: bin('eslint'), args: ['--max-warnings', '0', '.'] },
    { name: 'typecheck tsconfig.test.json', command: bin('tsc'), args: ['-p', 'tsconfig.test.json', '--noEmit'] },
    { name: 'typecheck tsconfig.renderer.json', command: bin('tsc'), args: ['-p', 'tsconfig.renderer.json', '--noEmit'] },
    {
      name: 'format (prettier --check)',
      command: bin('prettier'),
      args: ['--check', '--log-level', 'warn', '**/*.{ts,tsx,mjs,js,cjs,css}'],
    },
  ];
}

/** Runs one check with its output kept, to be printed whole once it ends (two never interleave). */
function runKept(root, { name, command, args }, lowPriority) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    if (lowPriority && child.pid !== undefined) {
      try {
        // The lowest: it runs on a core only while nothing else wants it.
        os.setPriority(child.pid, 19);
      } catch {
        // Not allowed here: it runs at the priority it was given.
      }
    }
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const done = (ok, extra = '') =>
      resolve({ name, ok, output: Buffer.concat(output).toString() + extra, seconds: Math.round((performance.now() - started) / 1000) });
    child.on('error', (error) => done(false, `\n${name} could not start: ${error.message}\n`));
    child.on('close', (code) => done(code === 0));
  });
}

/**
 * Runs every check, `parallel` at a time (at the lowest priority with `lowPriority`); resolves with
 * each one's result, in the order given. `quiet`: nothing is printed (the caller prints the results).
 */
export async function runStaticChecks(root, parallel = 2, { lowPriority = false, quiet = false } = {}) {
  const checks = staticCheckCommands(root);
  const results = new Array(checks.length);
  let next = 0;
  const lane = async () => {
    while (next < checks.length) {
      const index = next;
      next += 1;
      results[index] = await runKept(root, checks[index], lowPriority);
      if (!quiet) {
        printStaticCheck(results[index]);
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return results;
}

/** Prints one check's result: passed or FAILED, how long it took, and what it said. */
export function printStaticCheck({ name, ok, output, seconds }) {
  process.stdout.write(`${ok ? 'passed' : 'FAILED'}: ${name} (${seconds} s)\n${output.trim() === '' ? '' : `${output.trimEnd()}\n`}`);
}
