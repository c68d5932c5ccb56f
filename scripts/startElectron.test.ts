/**
 * `npm start` where no Electron binary can be had: it starts the browser version itself (the web
 * host), says why, and serves the page.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../e2e/fixtures/agentEnv.js';
import { electronBinary } from './electronBinary.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const binary = electronBinary();

describe('npm start', () => {
  it.skipIf(binary !== undefined)(
    binary
      ? `skipped: an Electron binary is installed (${binary}), so npm start opens the window`
      : 'starts the web host, saying why, where no Electron binary can be had',
    async () => {
      const child = spawn(
        process.execPath,
        [path.join(root, 'scripts', 'start-electron.mjs'), '--no-open', '--port', '0', '--data-dir', tempDir('start-web')],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
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
        expect(output).toContain('Baton starts in your browser instead');
        // The printed address carries the token: it sets the cookie, with which the page is served.
        const entry = await fetch(url, { redirect: 'manual' });
        expect(entry.status).toBe(303);
        const cookie = entry.headers.get('set-cookie')?.split(';')[0] ?? '';
        const page = await fetch(new URL(entry.headers.get('location') ?? '/', url), { headers: { cookie } });
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<div id="root"');
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
    30_000,
  );
});
