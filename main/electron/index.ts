/**
 * The Electron shell: one locked-down window (context isolation, sandbox, no Node in the page)
 * that loads the built renderer from the privileged app:// scheme with Baton's CSP, and reaches
 * the host core through the preload's IPC channels. Every request is checked for its sender frame
 * and parsed against the contract (security.ts); navigation and new windows are denied; links open
 * in the person's browser (after a confirmation for hosts not seen before); the page gets no
 * permissions. One instance per data folder; window size and position are remembered; updates
 * are looked for only when the person turned that on.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, Menu, protocol, safeStorage, session, shell, type IpcMainInvokeEvent } from 'electron';
import { z } from 'zod';
import { toWireError } from '../../app/errors.js';
import { agentPackagesFromEnv } from '../host/agents/agentPackagesFromEnv.js';
import { definedEnv, Host } from '../host/Host.js';
import { RotatingLog } from '../host/log/RotatingLog.js';
import { agentEnvironment } from '../host/machine/agentEnvironment.js';
import { CONTENT_SECURITY_POLICY, CONTENT_TYPES, resolveStatic } from '../web/staticFiles.js';
import { attentionCount } from './attention.js';
import { allowPermission, APP_PAGE, APP_SCHEME, checkIpcRequest, externalLink, isOwnPage, secureWebPreferences } from './security.js';
import { parseUpdateConfig, updateRefusal, type UpdateConfig } from './updatePolicy.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDir = path.resolve(here, '..', '..', 'renderer');
const preload = path.join(here, 'preload.cjs');

// Tests and people with several profiles may point the data folder elsewhere.
if (process.env.BATON_DATA_DIR) {
  app.setPath('userData', path.resolve(process.env.BATON_DATA_DIR));
}
// Before ready: app:// is a standard, secure scheme the page can fetch from.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

let host: Host | undefined;
let window: BrowserWindow | undefined;
let log: RotatingLog | undefined;
/** Hosts the person already agreed to open links to, this run. */
const confirmedHosts = new Set<string>();

type Bounds = { x?: number; y?: number; width: number; height: number };

function stateFile(): string {
  return path.join(app.getPath('userData'), 'window-state.json');
}

function savedBounds(): Bounds {
  try {
    const saved = JSON.parse(readFileSync(stateFile(), 'utf8')) as Partial<Bounds>;
    if (typeof saved.width === 'number' && typeof saved.height === 'number' && saved.width >= 400 && saved.height >= 300) {
      return {
        width: saved.width,
        height: saved.height,
        ...(typeof saved.x === 'number' && typeof saved.y === 'number' ? { x: saved.x, y: saved.y } : {}),
      };
    }
  } catch {
    // First start, or an unreadable file: the default size.
  }
  return { width: 1200, height: 800 };
}

async function openLink(url: string): Promise<void> {
  const link = externalLink(url);
  if (!link) {
    log?.write(`refused to open a link that is not http(s)`);
    return;
  }
  if (!confirmedHosts.has(link.host)) {
    const options = {
      type: 'question' as const,
      buttons: ['Open in browser', 'Cancel'],
      defaultId: 0,
      cancelId: 1,
      message: `Open ${link.host} in your browser?`,
      detail: link.href,
    };
    const { response } = window ? await dialog.showMessageBox(window, options) : await dialog.showMessageBox(options);
    if (response !== 0) {
      return;
    }
    confirmedHosts.add(link.host);
  }
  await shell.openExternal(link.href);
}

function createWindow(): BrowserWindow {
  const created = new BrowserWindow({ ...savedBounds(), title: 'Baton', show: false, webPreferences: secureWebPreferences(preload) });
  created.once('ready-to-show', () => created.show());
  created.on('close', () => {
    try {
      writeFileSync(stateFile(), JSON.stringify(created.getNormalBounds()));
    } catch {
      // The size is only a convenience.
    }
  });
  // Links open in the person's browser, never inside the app window, and nothing navigates it.
  created.webContents.setWindowOpenHandler(({ url }) => {
    void openLink(url);
    return { action: 'deny' };
  });
  created.webContents.on('will-navigate', (event, url) => {
    event.preventDefault();
    void openLink(url);
  });
  created.webContents.on('will-attach-webview', (event) => event.preventDefault());
  // The page's title counts the conversations that need the person ("(2) Baton"): so does the app's icon.
  created.on('page-title-updated', (_event, title) => app.setBadgeCount(attentionCount(title)));
  void created.loadURL(APP_PAGE);
  return created;
}

/** The person's setting: look for updates at start. Off unless they turn it on (no network at start-up without consent). */
const AUTO_UPDATE_SETTING = 'updates.automatic';

function automaticUpdates(running: Host): boolean {
  return running.store.getSetting(AUTO_UPDATE_SETTING, z.boolean(), false);
}

/** Looks for an update through electron-updater, only when the person turned it on. */
async function checkForUpdates(running: Host, writeLog: (line: string) => void): Promise<void> {
  if (!automaticUpdates(running) || !app.isPackaged) {
    return;
  }
  let config: UpdateConfig | null = null;
  try {
    config = parseUpdateConfig(readFileSync(path.join(process.resourcesPath, 'app-update.yml'), 'utf8'));
  } catch {
    config = null;
  }
  const refusal = updateRefusal(process.platform, config);
  if (refusal) {
    writeLog(`automatic updates are off: ${refusal}`);
    return;
  }
  try {
    const { autoUpdater } = (await import('electron-updater')).default;
    await autoUpdater.checkForUpdatesAndNotify();
  } catch (error) {
    writeLog(`update check failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function buildMenu(dataDir: string, logFile: string, running: Host): void {
  const isMac = process.platform === 'darwin';
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      ...(isMac ? [{ role: 'appMenu' as const }] : []),
      { role: 'fileMenu' },
      { role: 'editMenu' },
      { role: 'viewMenu' },
      { role: 'windowMenu' },
      {
        role: 'help',
        submenu: [
          {
            label: 'Check for Updates Automatically',
            type: 'checkbox',
            checked: automaticUpdates(running),
            click: (item) => running.store.setSetting(AUTO_UPDATE_SETTING, item.checked),
          },
          { label: 'Reveal Logs', accelerator: 'CmdOrCtrl+Shift+L', click: () => shell.showItemInFolder(logFile) },
          { label: 'Reveal Data Folder', accelerator: 'CmdOrCtrl+Shift+D', click: () => void shell.openPath(dataDir) },
        ],
      },
    ]),
  );
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
  const dataDir = app.getPath('userData');
  log = new RotatingLog(dataDir);
  const writeLog = (line: string): void => log?.write(line);
  // The page gets notifications, and no camera, microphone, clipboard reads…
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(allowPermission(permission, details.requestingUrl)),
  );
  session.defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    allowPermission(permission, requestingOrigin),
  );
  protocol.handle(APP_SCHEME, async (request) => {
    const file = await resolveStatic(rendererDir, new URL(request.url).pathname);
    return new Response(await readFile(file), {
      headers: {
        'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
        'content-security-policy': CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff',
      },
    });
  });
  try {
    // Started from a desktop menu, the app has a minimal PATH: take the person's login shell's.
    const env = await agentEnvironment(definedEnv(process.env), { askLoginShell: true });
    const agentPackages = agentPackagesFromEnv(env);
    // Secrets of the toolbox: their key is wrapped by the operating system's keychain where it has one.
    // On Linux, `basic_text` is Chromium's fixed built-in password: SecretBox does not count it as a keychain.
    const keyWrapper = safeStorage.isEncryptionAvailable()
      ? {
          wrap: (key: Buffer) => safeStorage.encryptString(key.toString('base64')),
          unwrap: (wrapped: Buffer) => Buffer.from(safeStorage.decryptString(wrapped), 'base64'),
          ...(process.platform === 'linux' ? { backend: safeStorage.getSelectedStorageBackend() } : {}),
        }
      : undefined;
    host = new Host({
      dataDir,
      version: app.getVersion(),
      env,
      log: writeLog,
      logFile: log.file,
      ...(agentPackages ? { agentPackages } : {}),
      ...(keyWrapper ? { keyWrapper } : {}),
    });
  } catch (error) {
    dialog.showErrorBox('Baton could not start', error instanceof Error ? error.message : String(error));
    app.quit();
    return;
  }
  const running = host;
  buildMenu(dataDir, log.file, running);
  void checkForUpdates(running, writeLog);
  ipcMain.handle('baton:request', async (event: IpcMainInvokeEvent, method: unknown, params: unknown) => {
    const checked = checkIpcRequest(event.senderFrame?.url, method, params, writeLog);
    return checked.ok ? running.handle(checked.method, checked.params) : { ok: false, error: checked.error };
  });
  ipcMain.handle('baton:pickFolder', async (event: IpcMainInvokeEvent) => {
    if (!isOwnPage(event.senderFrame?.url)) {
      writeLog('refused a folder picker request from a foreign frame');
      return { ok: false, error: toWireError(new Error('Refused.')) };
    }
    const options = { properties: ['openDirectory' as const, 'createDirectory' as const] };
    const picked = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
    return { ok: true, folder: picked.canceled ? null : (picked.filePaths[0] ?? null) };
  });
  // The page names a conversation, never a path: the folder shown is the one the host keeps for it.
  ipcMain.handle('baton:revealFolder', async (event: IpcMainInvokeEvent, conversationId: unknown) => {
    if (!isOwnPage(event.senderFrame?.url) || typeof conversationId !== 'string') {
      writeLog('refused a reveal request from a foreign frame or without a conversation');
      return { ok: false };
    }
    const error = await shell.openPath(running.store.getSummary(conversationId).cwd);
    return { ok: error === '' };
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
