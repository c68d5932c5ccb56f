/** The store instance of this window, bound to the window's API client. */
import { api } from '../api.js';
import { createBatonStore } from './store.js';

/** Hook and handle of the one store. */
export const useBaton = createBatonStore(api);
