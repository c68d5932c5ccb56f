/**
 * The preload: exposes only the host API to the page, as two functions on `window.baton`, plus
 * the desktop's native folder picker and a way to show a conversation's folder in the file manager.
 * Runs sandboxed (CommonJS, `electron` only); parsing happens in the main process and in
 * `renderer/api.ts`, so nothing here trusts either side.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';

const REQUEST = 'baton:request';
const EVENT = 'baton:event';
const PICK_FOLDER = 'baton:pickFolder';
const REVEAL_FOLDER = 'baton:revealFolder';

contextBridge.exposeInMainWorld('baton', {
  request: (method: string, params: unknown): Promise<unknown> => ipcRenderer.invoke(REQUEST, method, params),
  onEvent: (listener: (name: string, payload: unknown) => void): (() => void) => {
    const handler = (_event: IpcRendererEvent, name: string, payload: unknown): void => listener(name, payload);
    ipcRenderer.on(EVENT, handler);
    return () => {
      ipcRenderer.removeListener(EVENT, handler);
    };
  },
  revealFolder: async (conversationId: string): Promise<void> => {
    await ipcRenderer.invoke(REVEAL_FOLDER, conversationId);
  },
  pickFolder: async (): Promise<string | null> => {
    const answer = (await ipcRenderer.invoke(PICK_FOLDER)) as { ok: boolean; folder?: string | null };
    return answer.ok ? (answer.folder ?? null) : null;
  },
});
