/**
 * The starts: `npm start` where no Electron binary can be had starts the browser version itself
 * (the web host), says why, and serves the page; `node scripts/web.mjs` (what `npm run web` runs)
 * serves it too. Both check the build in their own process and start the host there.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../e2e/fixtures/agentEnv.js';
import { ensureBuilt } from '../e2e/fixtures/ensureBuilt.js';
import { electronBinary } from './electronBinary.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const binary = electronBinary();

/** Runs `script` with the web host's options until it prints its address; checks the page is served from it; returns what it printed. */
async function startsAndServes(script: string, name: string): Promise<string> {
  ensureBuilt();
  const child = spawn(process.execPath, [path.join(root, 'scripts', script), '--no-open', '--port', '0', '--data-dir', tempDir(name)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address printed:\n${output}`)), 20_000);
      child.stdout.on('data', () => {
        const found = /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(output)?.[0];
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
    });
    // The printed address carries the token: it sets the cookie, with which the page is served.
    const entry = await fetch(url, { redirect: 'manual' });
    expect(entry.status).toBe(303);
    const cookie = entry.headers.get('set-cookie')?.split(';')[0] ?? '';
    const page = await fetch(new URL(entry.headers.get('location') ?? '/', url), { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root"');
    return output;
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

describe('starting Baton', () => {
  it.skipIf(binary !== undefined)(
    binary
      ? `skipped: an Electron binary is installed (${binary}), so npm start opens the window`
      : 'npm start starts the web host, saying why, where no Electron binary can be had',
    async () => {
      const output = await startsAndServes('start-electron.mjs', 'start-web');
      expect(output).toContain('Baton starts in your browser instead');
    },
    60_000,
  );

  it('node scripts/web.mjs (npm run web) starts the web host with the build up to date, saying nothing else', async () => {
    const output = await startsAndServes('web.mjs', 'web-start');
    expect(output.trim().split('\n')).toEqual([expect.stringMatching(/^Baton is running at http:\/\/127\.0\.0\.1:\d+\//)]);
  }, 60_000);
});
