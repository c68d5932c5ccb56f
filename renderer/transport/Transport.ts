/** What the API client needs from a transport: request/response pairs and pushed events. */
import type { FileMethod, ResponseBody } from '../../app/ipc/index.js';

/** Connection state shown to the person; `unauthorized`: the host no longer lets this window in, and it stopped trying. */
export type ConnectionStatus = 'connecting' | 'open' | 'closed' | 'unauthorized';

/** What a request gets when the connection went before its answer came. */
export const CONNECTION_LOST_MESSAGE = 'The connection to Baton was lost. Try again in a moment.';

/** A way to reach the host (Electron IPC or WebSocket). */
export type Transport = {
  request(method: string, params: unknown): Promise<ResponseBody>;
  /** A request whose one text parameter is a file the person chose, carried as the transport carries files best. */
  requestWithFile(method: FileMethod, file: Blob): Promise<ResponseBody>;
  onEvent(listener: (name: string, payload: unknown) => void): () => void;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
};

/** The facade the Electron preload exposes on `window.baton`. */
export type PreloadBridge = {
  request(method: string, params: unknown): Promise<unknown>;
  onEvent(listener: (name: string, payload: unknown) => void): () => void;
  /** The desktop's native folder picker; null when the person cancelled. */
  pickFolder?(): Promise<string | null>;
  /** Shows a conversation's working folder in the file manager (the desktop app). */
  revealFolder?(conversationId: string): Promise<void>;
};
