/** The store instance of this window, bound to the window's API client. */
import { api } from '../api.js';
import { createBatonStore } from './store.js';

/** Hook and handle of the one store. */
export const useBaton = createBatonStore(api);

/** Actions (stable; selecting them never re-renders). */
export const useActions = (): ReturnType<typeof useBaton.getState>['actions'] => useBaton((state) => state.actions);
