// The pinned test agents (e2e/agents, about 1.4 GB): installed once for their lock, stamped with its
// digest in node_modules/.baton-stamp. `npm test` installs them in the background while it builds;
// `.ci/run` runs this file beside `npm ci` (`node scripts/testAgents.mjs`), so `npm test` finds them there.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Folders some agents make in /tmp whatever TMPDIR says: OpenCode's and Kilo's (their install's
 * check of the binary makes them too), and Claude Code's when it runs as the test sshd's account
 * (`claude-<uid>`, `cc-socks` or `cc-socks-<uid>`), and Qwen Code's sockets.
 */
const AGENT_TEMP = /^(opencode|kilo|cc-socks(-\d+)?|claude-\d+|qwen-socks-[0-9a-f]+)$/;
const systemTmp = '/tmp';

/** What /tmp holds now, for {@link removeAgentTempSince}. */
export function systemTmpNow() {
  return new Set(existsSync(systemTmp) ? readdirSync(systemTmp) : []);
}

/** Removes the agents' folders in /tmp that were not in `before`; returns their names. */
export function removeAgentTempSince(before) {
  const made = [...systemTmpNow()].filter((name) => AGENT_TEMP.test(name) && !before.has(name));
  for (const name of made) {
    rmSync(path.join(systemTmp, name), { recursive: true, force: true, maxRetries: 3 });
  }
  return made;
}

/** The digest of the agents' package.json and lock. */
function lockDigest(agentsDir) {
  return createHash('sha256')
    .update(readFileSync(path.join(agentsDir, 'package.json')))
    .update(readFileSync(path.join(agentsDir, 'package-lock.json')))
    .digest('hex');
}

/** Whether the agents installed under `root` are those of their lock. */
export function testAgentsInstalled(root) {
  const agentsDir = path.join(root, 'e2e', 'agents');
  const stampFile = path.join(agentsDir, 'node_modules', '.baton-stamp');
  return existsSync(stampFile) && readFileSync(stampFile, 'utf8') === lockDigest(agentsDir);
}

/**
 * Installs the agents (npm's output written to `logFile`); resolves with how it went: `ok`, the
 * seconds it took and npm's output, which holds why when it failed.
 */
export function installTestAgents(root, logFile) {
  const agentsDir = path.join(root, 'e2e', 'agents');
  const lock = lockDigest(agentsDir);
  const tmpBefore = systemTmpNow();
  mkdirSync(path.dirname(logFile), { recursive: true });
  // Written straight to a file (no pipe to drain while the caller waits on something else).
  const log = openSync(logFile, 'w');
  const started = performance.now();
  // Not `npm ci`: a dependency of Qwen Code lists optional per-platform packages that were never
  // published, which `npm ci` refuses; `npm install` follows the same lock and skips them.
  const child = spawn('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: agentsDir,
    stdio: ['ignore', log, log],
  });
  const seconds = () => Math.round((performance.now() - started) / 1000);
  return new Promise((resolve) => {
    // A failed start can be told twice ('error', then 'close'): the first word counts.
    let told = false;
    const tell = (ok, output) => {
      if (told) {
        return;
      }
      told = true;
      closeSync(log);
      // Those the agents' install scripts made there (OpenCode's and Kilo's run their binary).
      removeAgentTempSince(tmpBefore);
      if (ok) {
        writeFileSync(path.join(agentsDir, 'node_modules', '.baton-stamp'), lock);
      }
      resolve({ ok, seconds: seconds(), output });
    };
    child.on('close', (code) => {
      const output = readFileSync(logFile, 'utf8').trim();
      tell(code === 0, code === 0 ? output : `npm exited with ${code}:\n${output}`);
    });
    child.on('error', (error) => tell(false, error.message));
  });
}

// `node scripts/testAgents.mjs`: installs them unless they are there; exits 1 when that fails.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  if (testAgentsInstalled(root)) {
    console.log('Test agents are installed.');
  } else {
    const { ok, seconds, output } = await installTestAgents(root, path.join(root, '.tmp', 'agents-install.log'));
    console.log(ok ? `The test agents were installed in ${seconds} s.` : `Installing the test agents failed: ${output}`);
    if (ok && output) {
      console.log(output);
    }
    process.exitCode = ok ? 0 : 1;
  }
}
