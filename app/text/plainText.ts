/**
 * Markdown's markup left out of a piece of text: the words as a person reads them (titles, search
 * snippets). A search snippet's match markers (\u0002 … \u0003) are kept and do not part a word:
 * `run_` before a marked `shellcommand` keeps its underscore.
 */
export function plainText(markdown: string): string {
  return (
    markdown
      .replace(/```[\w-]*/g, ' ')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/(^|\s)#{1,6}\s+/g, '$1')
      .replace(/(^|\s)>\s?/g, '$1')
      .replace(/[*~`]+/g, '')
      // Underscores inside a word are part of it (`SLOW_STREAM`, `snake_case`), never emphasis.
      .replace(/(?<![\p{L}\p{N}][\u0002\u0003]?)_+|_+(?![\u0002\u0003]?[\p{L}\p{N}])/gu, '')
      .replace(/\|/g, ' ')
      .replace(/[ \t]+/g, ' ')
  );
}
