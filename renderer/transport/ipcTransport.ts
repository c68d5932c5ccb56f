/** The Electron transport: the preload's narrow bridge over IPC. Always connected. */
import { responseBodySchema } from '../../app/ipc/index.js';
import type { PreloadBridge, Transport } from './Transport.js';

/** Wraps the preload bridge; responses are parsed like any other boundary. */
export function ipcTransport(bridge: PreloadBridge): Transport {
  return {
    async request(method, params) {
      const raw = await bridge.request(method, params);
      const parsed = responseBodySchema.safeParse(raw);
      return parsed.success ? parsed.data : { ok: false, error: { code: 'Internal', message: 'The host answered with a malformed message.' } };
    },
    onEvent: (listener) => bridge.onEvent(listener),
    onStatus(listener) {
      listener('open');
      return () => {};
    },
  };
}
