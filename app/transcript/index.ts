/** The shared transcript model: state, the pure reducer and the catalog summary. */
export * from './context.js';
export * from './contextUse.js';
export * from './state.js';
export * from './reduce.js';
export * from './summary.js';
export * from './unfinished.js';
export { canUndoRewind, isSetAside, rewindFilesText, sessionForkPoint } from './rewinds.js';
