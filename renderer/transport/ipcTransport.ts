/** The Electron transport: the preload's narrow bridge over IPC. Always connected. */
import { fileParams, responseBodySchema } from '../../app/ipc/index.js';
import type { PreloadBridge, Transport } from './Transport.js';

/** Wraps the preload bridge; responses are parsed like any other boundary. */
export function ipcTransport(bridge: PreloadBridge): Transport {
  const request: Transport['request'] = async (method, params) => {
    const raw = await bridge.request(method, params);
    const parsed = responseBodySchema.safeParse(raw);
    return parsed.success
      ? parsed.data
      : { ok: false, error: { code: 'Internal', message: 'The host answered with a malformed message.' } };
  };
  return {
    request,
    // IPC copies a string as it is (no JSON around it), so the file goes as its text.
    requestWithFile: async (method, file) => request(method, fileParams(method, await file.text())),
    onEvent: (listener) => bridge.onEvent(listener),
    onStatus(listener) {
      listener('open');
      return () => {};
    },
  };
}
