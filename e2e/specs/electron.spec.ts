/**
 * The Electron shell: the same send as in the browser, through the preload bridge; the native
 * folder dialog for the working folder; notifications and the icon's count. Runs where an
 * Electron binary exists; elsewhere it reports itself skipped with the reason.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron as electron, expect, test } from '@playwright/test';
import { electronBinary } from '../../scripts/electronBinary.mjs';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { startModelStub } from '../fixtures/modelStub.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';
import { registerFakeAgent } from '../fixtures/fakeAgentConfig.js';

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
    await chooseAgent(page, 'Claude');
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

test('a link in the page never navigates the window, and a forged IPC message is refused while the app keeps running', async () => {
  test.skip(!binary, 'skipped: no Electron binary');
  const app = await electron.launch({
    executablePath: binary,
    args: [root, '--no-sandbox'],
    env: { ...agentTestEnv('http://127.0.0.1:9'), BATON_DATA_DIR: tempDir('electron-data') },
  });
  try {
    const page = await app.firstWindow();
    await expect(page.getByRole('button', { name: 'New conversation' })).toBeVisible();
    const before = page.url();
    expect(before).toBe('app://baton/index.html');
    // Navigating away is denied (the link would open in the browser after a confirmation).
    await page.evaluate(() => {
      (globalThis as unknown as { location: { href: string } }).location.href = 'https://example.com/';
    });
    await page.waitForTimeout(500);
    expect(page.url()).toBe(before);
    // A frame that is not Baton's page cannot reach the host: from the main process, forge one.
    const refused = await app.evaluate(async ({ ipcMain }) => {
      const handler = (
        ipcMain as unknown as { _invokeHandlers: Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>> }
      )._invokeHandlers.get('baton:request');
      return handler?.({ senderFrame: { url: 'https://evil.example/' } }, 'listAgents', {});
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'InvalidRequest' } });
    const malformed = await page.evaluate(() =>
      (globalThis as unknown as { baton: { request(method: string, params: unknown): Promise<unknown> } }).baton.request('sendMessage', {
        conversationId: 'x',
        text: 42,
      }),
    );
    expect(malformed).toMatchObject({ ok: false, error: { code: 'InvalidRequest' } });
    // Still serving.
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as { baton: { request(method: string, params: unknown): Promise<{ ok: boolean }> } }).baton.request(
          'listAgents',
          {},
        ),
      ),
    ).toMatchObject({ ok: true });
  } finally {
    await app.close();
  }
});

test('the working folder comes from the native folder dialog', async () => {
  test.skip(!binary, 'skipped: no Electron binary');
  const picked = tempDir('electron-picked');
  const app = await electron.launch({
    executablePath: binary,
    args: [root, '--no-sandbox'],
    env: { ...agentTestEnv('http://127.0.0.1:9'), BATON_DATA_DIR: tempDir('electron-data') },
  });
  try {
    // The dialog answers as if the person chose a folder (a real one would wait for a click).
    await app.evaluate(({ dialog }, folder) => {
      (dialog as unknown as { showOpenDialog: () => Promise<{ canceled: boolean; filePaths: string[] }> }).showOpenDialog = () =>
        Promise.resolve({ canceled: false, filePaths: [folder] });
    }, picked);
    const page = await app.firstWindow();
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByRole('button', { name: 'Choose…' }).click();
    await expect(page.getByRole('textbox', { name: 'Working folder' })).toHaveValue(picked);
  } finally {
    await app.close();
  }
});

test("a failure in a conversation out of view is notified through Electron's notifications, and the app's icon counts it", async () => {
  test.skip(!binary, 'skipped: no Electron binary');
  const dataDir = tempDir('electron-data');
  registerFakeAgent(dataDir);
  const app = await electron.launch({
    executablePath: binary,
    args: [root, '--no-sandbox'],
    env: { ...agentTestEnv('http://127.0.0.1:9'), BATON_DATA_DIR: dataDir },
  });
  try {
    // What the main process puts on the icon, as it puts it there.
    await app.evaluate(({ app: electronApp }) => {
      const real = electronApp.setBadgeCount.bind(electronApp);
      (globalThis as unknown as { badges: number[] }).badges = [];
      electronApp.setBadgeCount = (count?: number) => {
        (globalThis as unknown as { badges: number[] }).badges.push(count ?? 0);
        return real(count);
      };
    });
    // Each notification the page makes (the real one is still shown).
    await app.context().addInitScript(() => {
      const Real = window.Notification;
      const made: Array<{ title: string; body: string | undefined }> = [];
      (window as unknown as { notified: typeof made }).notified = made;
      window.Notification = class extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          made.push({ title, body: options?.body });
        }
      };
    });
    const page = await app.firstWindow();
    await page.reload();
    // Electron grants Baton's own page notifications (and nothing else).
    expect(await page.evaluate(() => Notification.permission)).toBe('granted');
    const work = tempDir('electron-notify-work');
    await page.getByRole('button', { name: 'New conversation', exact: true }).click();
    await chooseAgent(page, 'Fake');
    await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
    await page.getByRole('textbox', { name: 'Message' }).fill('break down after go');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.getByRole('button', { name: 'Stop' })).toBeEnabled();
    await page.getByRole('button', { name: 'New conversation', exact: true }).click();
    writeFileSync(path.join(work, 'go'), '');
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { notified: unknown[] }).notified))
      .toEqual([{ title: 'Fake could not finish', body: 'break down after go' }]);
    await expect(page).toHaveTitle('(1) Baton');
    await expect.poll(() => app.evaluate(() => (globalThis as unknown as { badges: number[] }).badges.at(-1))).toBe(1);
  } finally {
    await app.close();
  }
});
