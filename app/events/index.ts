/** The transcript event grammar: schemas, types and parsing. */
export * from './schemas.js';
export * from './parse.js';
