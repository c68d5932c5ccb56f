/**
 * The renderer's one host-API client. It cannot tell which transport it is on: Electron's
 * preload bridge when present, else the web host's WebSocket. Results and pushed events are
 * parsed against the contract; errors come back as typed BatonErrors.
 */
import { fromWireError } from '../app/errors.js';
import {
  parsePushEvent,
  requests,
  type FileMethod,
  type Method,
  type Params,
  type PushEvent,
  type ResponseBody,
  type Result,
} from '../app/ipc/index.js';
import { ipcTransport } from './transport/ipcTransport.js';
import type { ConnectionStatus, PreloadBridge, Transport } from './transport/Transport.js';
import { webSocketTransport } from './transport/webSocketTransport.js';

/** The API client. */
export type Api = {
  call<M extends Method>(method: M, params: Params<M>): Promise<Result<M>>;
  /** A request whose one text parameter is the file the person chose (see `fileRequests`). */
  callWithFile<M extends FileMethod>(method: M, file: Blob): Promise<Result<M>>;
  onPush(listener: (event: PushEvent) => void): () => void;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
};

/** Builds a client over a transport. */
export function createApi(transport: Transport): Api {
  const resultOf = <M extends Method>(method: M, body: ResponseBody): Result<M> => {
    if (!body.ok) {
      throw fromWireError(body.error);
    }
    return requests[method].result.parse(body.result) as Result<M>;
  };
  return {
    call: async (method, params) => resultOf(method, await transport.request(method, params)),
    callWithFile: async (method, file) => resultOf(method, await transport.requestWithFile(method, file)),
    onPush(listener) {
      return transport.onEvent((name, payload) => {
        const event = parsePushEvent(name, payload);
        if (event) {
          listener(event);
        }
      });
    },
    onStatus: (listener) => transport.onStatus(listener),
  };
}

declare global {
  interface Window {
    baton?: PreloadBridge;
  }
}

/** The client for this window. */
export const api: Api = createApi(window.baton ? ipcTransport(window.baton) : webSocketTransport(window.location));

/** Shows a conversation's working folder in the desktop's file manager (undefined in a browser). */
export const revealFolder: ((conversationId: string) => Promise<void>) | undefined = window.baton?.revealFolder
  ? (conversationId) => window.baton!.revealFolder!(conversationId)
  : undefined;

/** The desktop's native folder picker, where Baton runs as a desktop app (undefined in a browser). */
export const pickFolder: (() => Promise<string | null>) | undefined = window.baton?.pickFolder
  ? () => window.baton!.pickFolder!()
  : undefined;
