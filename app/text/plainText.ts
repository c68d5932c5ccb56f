/** Markdown's markup left out of a piece of text: the words as a person reads them (titles, search snippets). */
export function plainText(markdown: string): string {
  return markdown
    .replace(/```[\w-]*/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(^|\s)#{1,6}\s+/g, '$1')
    .replace(/(^|\s)>\s?/g, '$1')
    .replace(/[*_~`]+/g, '')
    .replace(/\|/g, ' ')
    .replace(/[ \t]+/g, ' ');
}
