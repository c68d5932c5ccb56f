/** Markdown's markup left out of a piece of text: the words as a person reads them (titles, search snippets). */
export function plainText(markdown: string): string {
  return (
    markdown
      .replace(/```[\w-]*/g, ' ')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/(^|\s)#{1,6}\s+/g, '$1')
      .replace(/(^|\s)>\s?/g, '$1')
      .replace(/[*~`]+/g, '')
      // Underscores inside a word are part of it (`SLOW_STREAM`, `snake_case`), never emphasis.
      .replace(/(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, '')
      .replace(/\|/g, ' ')
      .replace(/[ \t]+/g, ' ')
  );
}
