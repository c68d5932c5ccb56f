/** A host-API client for the store's unit tests: answers only the methods a test gives, and records every call. */
import { fileParams, type FileMethod, type Method, type Params, type Result } from '../../app/ipc/index.js';
import type { Api } from '../api.js';

/** The answers a test gives, by method. */
export type Answers = { [M in Method]?: (params: Params<M>) => Result<M> | Promise<Result<M>> };

/** The client and the calls it received, in order. */
export function testApi(answers: Answers): { api: Api; calls: Array<{ method: Method; params: unknown }> } {
  const calls: Array<{ method: Method; params: unknown }> = [];
  const api: Api = {
    async call<M extends Method>(method: M, params: Params<M>): Promise<Result<M>> {
      calls.push({ method, params });
      const answer = answers[method];
      if (!answer) {
        throw new Error(`The test did not expect ${method}.`);
      }
      return answer(params);
    },
    // Recorded as the request it stands for, with the file's text as its parameter.
    async callWithFile<M extends FileMethod>(method: M, file: Blob): Promise<Result<M>> {
      return api.call(method, fileParams(method, await file.text()));
    },
    onPush: () => () => {},
    onStatus: () => () => {},
  };
  return { api, calls };
}
