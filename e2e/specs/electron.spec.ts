/**
 * The Electron shell: the same send as in the browser, through the preload bridge. Runs where
 * an Electron binary exists; elsewhere it reports itself skipped with the reason.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron as electron, expect, test } from '@playwright/test';
import { electronBinary } from '../../scripts/electronBinary.mjs';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { startModelStub } from '../fixtures/modelStub.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const binary = electronBinary();

test('the Electron window sends a message to Claude and shows the reply', async () => {
  test.skip(!binary, 'skipped: no Electron binary');
  const stub = await startModelStub({ reply: () => ({ chunks: ['Hello from ', 'inside Electron.'] }) });
  const app = await electron.launch({
    executablePath: binary,
    args: [root, '--no-sandbox'],
    env: { ...agentTestEnv(stub.url), BATON_DATA_DIR: tempDir('electron-data') },
  });
  try {
    const page = await app.firstWindow();
    // The page has the bridge and nothing of Node.
    expect(await page.evaluate(() => typeof (globalThis as { baton?: unknown }).baton)).toBe('object');
    expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Claude' });
    await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('electron-work'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello from the desktop');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.getByRole('article', { name: /^You/ })).toContainText('Hello from the desktop');
    await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('Hello from inside Electron.');
  } finally {
    await app.close();
    await stub.close();
  }
});
