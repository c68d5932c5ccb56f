/**
 * The Electron shell: one locked-down window (context isolation, sandbox, no Node in the page)
 * that loads the built renderer and reaches the host core through the preload's two IPC
 * channels. Requests from any frame but our own page are refused.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, safeStorage, shell, type IpcMainInvokeEvent } from 'electron';
import { toWireError, InvalidRequestError } from '../../app/errors.js';
import { definedEnv, Host } from '../host/Host.js';
import { agentEnvironment } from '../host/process/agentEnvironment.js';
import { agentPackagesFromEnv } from '../host/adapters/agentPackagesFromEnv.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const rendererIndex = path.resolve(here, '..', '..', 'renderer', 'index.html');
const preload = path.join(here, 'preload.cjs');

// Tests and people with several profiles may point the data folder elsewhere.
if (process.env.BATON_DATA_DIR) {
  app.setPath('userData', path.resolve(process.env.BATON_DATA_DIR));
}

let host: Host | undefined;
let window: BrowserWindow | undefined;

function isOurPage(event: IpcMainInvokeEvent): boolean {
  const url = event.senderFrame?.url ?? '';
  return url === pathToFileURL(rendererIndex).href || url.startsWith(`${pathToFileURL(rendererIndex).href}?`) || url.startsWith(`${pathToFileURL(rendererIndex).href}#`);
}

function createWindow(): BrowserWindow {
  const created = new BrowserWindow({
    width: 1200,
    height: 800,
    title: 'Baton',
    show: false,
    webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true },
  });
  created.once('ready-to-show', () => created.show());
  // Links open in the person's browser, never inside the app window.
  created.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://') || url.startsWith('http://')) {
      void shell.openExternal(url);
    }
    return { action: 'deny' };
  });
  created.webContents.on('will-navigate', (event) => event.preventDefault());
  void created.loadFile(rendererIndex);
  return created;
}

async function start(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    dialog.showErrorBox('Baton is already running', 'Another Baton window is open with the same data folder. Switch to it instead.');
    app.quit();
    return;
  }
  // A second launch on the same data folder brings this window forward instead.
  app.on('second-instance', () => {
    if (window?.isMinimized()) {
      window.restore();
    }
    window?.show();
    window?.focus();
  });
  await app.whenReady();
  try {
    // Started from a desktop menu, the app has a minimal PATH: take the person's login shell's.
    const env = await agentEnvironment(definedEnv(process.env), { askLoginShell: true });
    const agentPackages = agentPackagesFromEnv(env);
    // Secrets of the toolbox: their key is wrapped by the operating system's keychain where it has one.
    const keyWrapper = safeStorage.isEncryptionAvailable()
      ? { wrap: (key: Buffer) => safeStorage.encryptString(key.toString('base64')), unwrap: (wrapped: Buffer) => Buffer.from(safeStorage.decryptString(wrapped), 'base64') }
      : undefined;
    host = new Host({ dataDir: app.getPath('userData'), version: app.getVersion(), env, ...(agentPackages ? { agentPackages } : {}), ...(keyWrapper ? { keyWrapper } : {}) });
  } catch (error) {
    dialog.showErrorBox('Baton could not start', error instanceof Error ? error.message : String(error));
    app.quit();
    return;
  }
  const running = host;
  ipcMain.handle('baton:request', async (event, method: unknown, params: unknown) => {
    if (!isOurPage(event)) {
      return { ok: false, error: toWireError(new InvalidRequestError('Requests are accepted only from Baton\'s own page.')) };
    }
    if (typeof method !== 'string') {
      return { ok: false, error: toWireError(new InvalidRequestError('The method name must be a string.')) };
    }
    return running.handle(method, params);
  });
  running.subscribe((pushed) => {
    if (window && !window.isDestroyed()) {
      window.webContents.send('baton:event', pushed.name, pushed.payload);
    }
  });
  window = createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) {
      window = createWindow();
    }
  });
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') {
    app.quit();
  }
});

let disposed = false;
app.on('will-quit', (event) => {
  if (disposed || !host) {
    return;
  }
  event.preventDefault();
  disposed = true;
  void host.dispose().finally(() => app.quit());
});

void start();
