// `npm test`: everything the tests need, then every suite, then one closing line `N passed, N failed`.
//   1. set-up: Debian's Chromium and its headless shell, openssh-server, podman, runc, debootstrap and xfsprogs
//      (installed with apt-get when running as root),
//      the pinned test agents (e2e/agents,
//      installed in the background while the build and the static checks run: only the tests need them)
//   2. build (the host's type check)   3. lint and the other type checks (two at a time when no set-up works behind them)
//   4. unit and integration tests (vitest)   5. browser and Electron tests (Playwright)
//   6. nothing left behind: no process the suites started still runs, and their temp folder is removed
// The summary says how long each step took.
// The suites run with a temp folder of their own (TMPDIR) and a marker in their environment, which
// every process they start inherits: that is how leftovers are found, however they were started.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runStaticChecks } from './staticChecks.mjs';
import { installTestAgents, removeAgentTempSince, systemTmpNow, testAgentsInstalled } from './testAgents.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const reports = path.join(root, '.tmp');
mkdirSync(reports, { recursive: true });
/** Debian's headless shell of Chromium where installed (lighter: e2e/fixtures/chromium.ts), else the full browser. */
const CHROMIUMS = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];

const runId = randomUUID();
const runTmp = mkdtempSync(path.join(os.tmpdir(), 'baton-test-run-'));
/** What /tmp held at the start: the agents' folders there that a run makes are removed at its end, those there before it are left alone. */
const systemTmpAtStart = systemTmpNow();
/** The environment of every suite: its own temp folder, and the marker its processes inherit. */
const suiteEnv = { ...process.env, TMPDIR: runTmp, BATON_TEST_RUN: runId, BATON_REGISTRY_URL: process.env.BATON_REGISTRY_URL ?? 'off' };

let passed = 0;
let failed = 0;
const failures = [];
const skips = [];

function run(command, args, options = {}) {
  return spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
}

/** How long each step took (seconds), in order. */
const times = [];
let current;

function section(title) {
  const now = performance.now();
  if (current) {
    times.push(`${current.title} ${Math.round((now - current.started) / 1000)} s`);
  }
  current = { title, started: now };
  console.log(`\n=== ${title} ===`);
}

/** The first lines of a failure's message, without colour codes: the summary says why, not only what. */
function why(message) {
  const lines = String(message ?? '')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  return lines.length === 0 ? '' : `\n    ${lines.slice(0, 8).join('\n    ')}`;
}

function check(name, ok) {
  if (ok) {
    passed += 1;
  } else {
    failed += 1;
    failures.push(name);
  }
}

/** Installs Debian's `packages` (as root, with apt-get) when one of `tools` is missing; says which tests skip while one still is. */
function installForTests(tools, packages, installing, skipping) {
  const present = () => tools.every((tool) => existsSync(tool));
  if (!present() && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.log(installing);
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', ...packages]);
  }
  if (!present()) {
    console.log(skipping);
  }
}

function setUp() {
  section('set-up');
  if (!process.env.BATON_CHROMIUM) {
    installForTests(
      CHROMIUMS,
      ['chromium', 'chromium-headless-shell'],
      "Installing Debian's Chromium and its headless shell for the browser tests…",
      `Not both of ${CHROMIUMS.join(' and ')} (apt-get install -y chromium chromium-headless-shell): the browser tests run in the one there is.`,
    );
  }
  const chromium = process.env.BATON_CHROMIUM ?? CHROMIUMS.find((candidate) => existsSync(candidate));
  if (!chromium || !existsSync(chromium)) {
    console.error(
      `Chromium was not found at ${chromium ?? CHROMIUMS.join(' or ')}. Install it (apt-get install -y chromium chromium-headless-shell) or set BATON_CHROMIUM.`,
    );
    process.exit(1);
  }
  console.log(`The browser tests run in ${chromium}.`);
  // A real sshd for the SSH machine's tests (run from each test's own folder; the system's sshd is never started).
  installForTests(
    ['/usr/sbin/sshd'],
    ['openssh-server'],
    "Installing Debian's openssh-server for the SSH machine tests…",
    'No sshd at /usr/sbin/sshd (apt-get install -y openssh-server): the SSH machine tests will be skipped, saying why.',
  );
  // A real container engine for the container machine's tests (podman with runc; debootstrap makes their image).
  installForTests(
    ['/usr/bin/podman', '/usr/sbin/runc', '/usr/sbin/debootstrap'],
    ['podman', 'runc', 'debootstrap'],
    "Installing Debian's podman, runc and debootstrap for the container machine tests…",
    'No podman, runc or debootstrap (apt-get install -y podman runc debootstrap): the container tests will be skipped, saying why.',
  );
  // A file system that makes copy-on-write clones for the tests of copies that clone (an XFS image mounted through a loop device).
  installForTests(
    ['/usr/sbin/mkfs.xfs'],
    ['xfsprogs'],
    "Installing Debian's xfsprogs for the tests of copies that clone…",
    'No mkfs.xfs (apt-get install -y xfsprogs): the tests of copies that clone will be skipped, saying why.',
  );
  if (testAgentsInstalled(root)) {
    console.log('Test agents are installed.');
    return Promise.resolve(true);
  }
  console.log('Installing the pinned test agents (e2e/agents, about 1.4 GB) in the background, while the build and the static checks run…');
  settingUpBehind = true;
  return installTestAgents(root, path.join(reports, 'agents-install.log')).then(({ ok, seconds, output }) => {
    if (ok) {
      console.log(`The test agents were installed in ${seconds} s.${output ? `\n${output}` : ''}`);
    } else {
      console.error(`Installing the test agents failed: ${output}`);
    }
    return ok;
  });
}

function build() {
  section('build');
  const result = run(process.execPath, [path.join(root, 'scripts', 'build.mjs')]);
  check('build', result.status === 0);
  return result.status === 0;
}

/** True while the set-up works in the background (the agents' install, the container image), which the tests wait for. */
let settingUpBehind = false;

async function staticChecks() {
  section('lint and type checks');
  // The host's type check is the build's (see staticChecks.mjs). Two at a time, unless the set-up
  // still works behind them: the tests wait for it, so it keeps the other core.
  for (const result of await runStaticChecks(root, settingUpBehind ? 1 : 2)) {
    check(result.name, result.ok);
  }
}

function vitest() {
  section('unit and integration tests (vitest)');
  const output = path.join(reports, 'vitest.json');
  run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${output}`], { env: suiteEnv });
  if (!existsSync(output)) {
    check('vitest produced a report', false);
    return;
  }
  const report = JSON.parse(readFileSync(output, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  for (const file of report.testResults) {
    for (const test of file.assertionResults) {
      if (test.status === 'failed') {
        failures.push(`${path.relative(root, file.name)} › ${test.fullName}${why(test.failureMessages?.[0])}`);
      } else if (test.status === 'skipped' || test.status === 'pending') {
        skips.push(`${path.relative(root, file.name)} › ${test.fullName}`);
      }
    }
    // A file that fails to load has no test results but must still count as a failure.
    if (file.status === 'failed' && file.assertionResults.length === 0) {
      failed += 1;
      failures.push(`${path.relative(root, file.name)} (failed to load: ${file.message ?? 'unknown error'})`);
    }
  }
}

function playwright() {
  section('browser and Electron tests (Playwright)');
  const output = path.join(reports, 'playwright.json');
  run(bin('playwright'), ['test', '-c', 'e2e/playwright.config.ts'], {
    // The specs find the same Chromium (e2e/fixtures/chromium.ts), and the full browser where a spec needs it.
    env: { ...suiteEnv, PLAYWRIGHT_JSON_OUTPUT_NAME: output },
  });
  if (!existsSync(output)) {
    check('playwright produced a report', false);
    return;
  }
  const report = JSON.parse(readFileSync(output, 'utf8'));
  const visit = (suite, trail) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests) {
        const name = `${[...trail, spec.title].filter(Boolean).join(' › ')}`;
        if (test.status === 'skipped') {
          const reason = test.annotations.find((annotation) => annotation.type === 'skip')?.description ?? 'no reason given';
          skips.push(`${name}: ${reason}`);
        } else if (test.status === 'expected' || test.status === 'flaky') {
          passed += 1;
        } else {
          failed += 1;
          const error = test.results?.at(-1)?.error;
          failures.push(
            `${name}${why(error ? `${error.message ?? ''}\n${error.location ? `at ${path.relative(root, error.location.file)}:${error.location.line}` : ''}` : '')}`,
          );
        }
      }
    }
    for (const child of suite.suites ?? []) {
      visit(child, [...trail, child.title]);
    }
  };
  for (const suite of report.suites ?? []) {
    visit(suite, [suite.title]);
  }
  for (const error of report.errors ?? []) {
    failed += 1;
    failures.push(`playwright: ${error.message?.split('\n')[0] ?? 'error'}`);
  }
}

/** Processes (other than this one) whose environment carries this run's marker. Linux only (/proc). */
function processesOfThisRun() {
  if (!existsSync('/proc/self/environ')) {
    return [];
  }
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Zombies have ended; they only wait for their parent (or init) to reap them.
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) {
        continue;
      }
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(`BATON_TEST_RUN=${runId}`)) {
        found.push({ pid: Number(entry), args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim() });
      }
    } catch {
      // It ended while we looked, or is not ours to read.
    }
  }
  return found;
}

function leftovers() {
  section('nothing left behind');
  // Lifelines and grace periods end what a suite disposed within a few seconds.
  const deadline = Date.now() + 8_000;
  let left = processesOfThisRun();
  while (left.length > 0 && Date.now() < deadline) {
    spawnSync('sleep', ['0.25']);
    left = processesOfThisRun();
  }
  for (const { pid, args } of left) {
    console.log(`still running: ${pid} ${args.slice(0, 200)}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  check(`no process the tests started is left running (${left.length} were)`, left.length === 0);
  // The container tests' podman storage is the run's own: no container may be left in it (the tests' own, by the run's
  // label; those Baton started for attempts, `baton.attempt`; dev containers, `baton.devcontainer`); then it goes, mounts and all.
  const podmanStorage = path.join(runTmp, 'baton-podman');
  if (existsSync(podmanStorage)) {
    const globals = ['--root', path.join(podmanStorage, 'root'), '--runroot', path.join(podmanStorage, 'run'), '--runtime', 'runc'];
    const containers = ['label=baton.test-run', 'label=baton.attempt', 'label=baton.devcontainer'].flatMap((filter) => {
      const listed = spawnSync('podman', [...globals, 'ps', '-a', '--filter', filter, '--format', '{{.Names}}'], { encoding: 'utf8' });
      return (listed.stdout ?? '').split('\n').filter(Boolean);
    });
    for (const name of new Set(containers)) {
      console.log(`container still there: ${name}`);
    }
    check(`no container the tests started is left (${containers.length} were)`, containers.length === 0);
    spawnSync('podman', [...globals, 'system', 'reset', '--force'], { stdio: 'ignore' });
  }
  // File systems mounted in the temp folder (the XFS images of the tests of copies that clone; podman's own storage aside)
  // are a test's to unmount; any still there is, and then every mount there goes before the folder does.
  const mounts = existsSync('/proc/mounts')
    ? readFileSync('/proc/mounts', 'utf8')
        .split('\n')
        .map((line) => line.split(' ')[1] ?? '')
        .filter((point) => point.startsWith(`${runTmp}/`))
    : [];
  const mountedByTests = mounts.filter((point) => !point.startsWith(`${podmanStorage}/`));
  for (const point of mountedByTests) {
    console.log(`still mounted: ${point}`);
  }
  check(`no file system the tests mounted is left mounted (${mountedByTests.length} were)`, mountedByTests.length === 0);
  for (const point of mounts.reverse()) {
    spawnSync('umount', ['-l', point], { stdio: 'ignore' });
  }
  const made = readdirSync(runTmp);
  console.log(
    made.length === 0
      ? 'The temp folder holds nothing the tests made.'
      : `The tests left ${made.length} entries in their temp folder (${made.slice(0, 5).join(', ')}${made.length > 5 ? ', …' : ''}); removing them.`,
  );
  rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
  const strays = removeAgentTempSince(systemTmpAtStart);
  if (strays.length > 0) {
    console.log(`Removed what agents made in /tmp outside the run's temp folder: ${strays.join(', ')}.`);
  }
}

/**
 * The container tests' image root (debootstrap, about a minute; kept in .tmp/container/ across runs),
 * made in the background while the build and the static checks run; resolves when it is there (or could not be made: the
 * tests that need it then make it, or say why).
 */
function containerRoot() {
  if (!['/usr/bin/podman', '/usr/sbin/runc', '/usr/sbin/debootstrap'].every((tool) => existsSync(tool)) || process.getuid?.() !== 0) {
    return Promise.resolve();
  }
  settingUpBehind ||= !existsSync(path.join(root, '.tmp', 'container', 'bookworm-nodejs-git.tar'));
  const logFile = path.join(reports, 'container-root.log');
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'testContainerRoot.mjs')], { cwd: root, stdio: ['ignore', log, log] });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      closeSync(log);
      if (code !== 0) {
        console.log(
          `The container tests' image could not be made now (see ${logFile}); the tests that need it will try again, or say why.`,
        );
      }
      resolve();
    });
    child.on('error', () => resolve());
  });
}

const agentsInstalled = setUp();
const containerRootMade = containerRoot();
if (build()) {
  await staticChecks();
  section('waiting for the test agents and the container image');
  await containerRootMade;
  if (await agentsInstalled) {
    vitest();
    playwright();
  } else {
    check('the pinned test agents are installed (see the npm output above)', false);
  }
}
leftovers();
section('summary');
console.log(`times: ${times.join(', ')}`);
for (const skip of skips) {
  console.log(`skipped: ${skip}`);
}
for (const failure of failures) {
  console.log(`FAILED: ${failure}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
