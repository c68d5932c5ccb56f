/** The host API contract. */
export * from './contract.js';
