// The static checks of `npm test`, two at a time where nothing else needs the cores (each check is
// one process busy on one core): ESLint with the layer rule, Prettier, and the type checks of the
// renderer and the tests. The host's own type check is the build's `tsc -p tsconfig.node.json`,
// which fails the build on any error, so it is not run twice.
import { spawn } from 'node:child_process';
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
function runKept(root, { name, command, args }) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const done = (ok, extra = '') =>
      resolve({ name, ok, output: Buffer.concat(output).toString() + extra, seconds: Math.round((performance.now() - started) / 1000) });
    child.on('error', (error) => done(false, `\n${name} could not start: ${error.message}\n`));
    child.on('close', (code) => done(code === 0));
  });
}

/** Runs every check, `parallel` at a time; resolves with each one's result, in the order given. */
export async function runStaticChecks(root, parallel = 2) {
  const checks = staticCheckCommands(root);
  const results = new Array(checks.length);
  let next = 0;
  const lane = async () => {
    while (next < checks.length) {
      const index = next;
      next += 1;
      results[index] = await runKept(root, checks[index]);
      const { name, ok, output, seconds } = results[index];
      process.stdout.write(`${ok ? 'passed' : 'FAILED'}: ${name} (${seconds} s)\n${output.trim() === '' ? '' : `${output.trimEnd()}\n`}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return results;
}
