/** Quoting for POSIX shells. */

/** A word as /bin/sh reads it back unchanged: as it is when it needs no quotes, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
