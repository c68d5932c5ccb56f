/**
 * The preload: exposes only the host API to the page, as two functions on `window.baton`.
 * Runs sandboxed (CommonJS, `electron` only); parsing happens in the main process and in
 * `renderer/api.ts`, so nothing here trusts either side.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';

const REQUEST = 'baton:request';
const EVENT = 'baton:event';

contextBridge.exposeInMainWorld('baton', {
  request: (method: string, params: unknown): Promise<unknown> => ipcRenderer.invoke(REQUEST, method, params),
  onEvent: (listener: (name: string, payload: unknown) => void): (() => void) => {
    const handler = (_event: IpcRendererEvent, name: string, payload: unknown): void => listener(name, payload);
    ipcRenderer.on(EVENT, handler);
    return () => {
      ipcRenderer.removeListener(EVENT, handler);
    };
  },
});
