/**
 * Splits Markdown into its top-level blocks, so that a streaming reply parses only the block that
 * is still growing: a block is closed once a later line starts a new one, and a closed block never
 * changes again as text is appended, so its rendering is memoized by its text.
 *
 * Blocks end at a blank line outside a code fence, unless what follows continues a list (another
 * item or an indented line). A long paragraph is further cut into segments of about
 * SEGMENT_CHARS at spaces where no inline span (code, emphasis, link, autolink, strike-through)
 * is open and the next word cannot start a block; the segments render inside one paragraph.
 * Every cut depends only on the text before it, so appending never moves an earlier cut.
 */

/** A top-level block; a paragraph's segments are its `segments`. */
export type MarkdownBlock = { text: string; segments?: string[] };

/** About this many characters a paragraph segment. */
export const SEGMENT_CHARS = 2_000;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)/;
/** A block that is not a plain paragraph: heading, quote, table, list, fence, indented code, HTML, rule. */
const NOT_PARAGRAPH = /^( {4}|\t| {0,3}([#>|<]|[-*+_=]|\d{1,9}[.)]|`{3}|~{3}))/;
/** A later line that would turn the paragraph into a heading or a table. */
const UNDERLINE_OR_ROW = /\n {0,3}(=+|-+\s*$|\|)/m;

/** The blocks of `text`. */
export function markdownBlocks(text: string): MarkdownBlock[] {
  return splitLines(text).map((block) =>
    block.length <= SEGMENT_CHARS || NOT_PARAGRAPH.test(block) || UNDERLINE_OR_ROW.test(block)
      ? { text: block }
      : { text: block, segments: paragraphSegments(block) },
  );
}

/** Top-level blocks as text; each keeps its own lines, blank lines between blocks are dropped. */
function splitLines(text: string): string[] {
  const blocks: string[] = [];
  const lines = text.split('\n');
  let current: string[] = [];
  let fence: { char: string; length: number } | undefined;
  let blank = false;
  const close = (): void => {
    if (current.length > 0) {
      blocks.push(current.join('\n'));
    }
    current = [];
  };
  for (const line of lines) {
    if (fence) {
      current.push(line);
      const closing = FENCE.exec(line)?.[1];
      if (closing && closing[0] === fence.char && closing.length >= fence.length && line.trim() === closing) {
        fence = undefined;
      }
      continue;
    }
    if (line.trim() === '') {
      blank = current.length > 0;
      if (current.length > 0) {
        current.push(line);
      }
      continue;
    }
    if (blank) {
      // A blank line was seen: this line starts a new block unless it continues a list.
      const inList = LIST_ITEM.test(current[0] ?? '');
      if (!(inList && (LIST_ITEM.test(line) || /^\s{2,}/.test(line)))) {
        current.splice(current.findLastIndex((kept) => kept.trim() !== '') + 1);
        close();
      }
      blank = false;
    }
    const opening = FENCE.exec(line)?.[1];
    if (opening) {
      fence = { char: opening[0]!, length: opening.length };
    }
    current.push(line);
  }
  if (!fence) {
    current.splice(current.findLastIndex((kept) => kept.trim() !== '') + 1);
  }
  close();
  return blocks;
}

/**
 * A long paragraph cut at safe spaces (the space itself is dropped; rendering puts one back): one
 * pass that keeps the count of each inline marker since the last cut.
 */
function paragraphSegments(paragraph: string): string[] {
  const segments: string[] = [];
  let start = 0;
  let ticks = 0;
  let stars = 0;
  let unders = 0;
  let tildes = 0;
  let brackets = 0;
  let angles = 0;
  let parens = 0;
  for (let index = 0; index < paragraph.length; index += 1) {
    const code = paragraph.charCodeAt(index);
    if (code === 32 && index - start >= SEGMENT_CHARS && index + 1 < paragraph.length) {
      const open =
        ticks % 2 !== 0 || stars % 2 !== 0 || unders % 2 !== 0 || tildes % 2 !== 0 || brackets !== 0 || angles !== 0 || parens !== 0;
      // The next segment must start with a letter, so it cannot open a block of its own.
      if (!open && /\p{L}/u.test(paragraph[index + 1]!)) {
        segments.push(paragraph.slice(start, index));
        start = index + 1;
      }
      continue;
    }
    switch (code) {
      case 96:
        ticks += 1;
        break; // `
      case 42:
        stars += 1;
        break; // *
      case 95:
        unders += 1;
        break; // _
      case 126:
        tildes += 1;
        break; // ~
      case 91:
        brackets += 1;
        break; // [
      case 93:
        brackets -= 1;
        break; // ]
      case 60:
        angles += 1;
        break; // <
      case 62:
        angles -= 1;
        break; // >
      case 40:
        parens += 1;
        break; // (
      case 41:
        parens -= 1;
        break; // )
      case 92:
        index += 1;
        break; // \ escapes the next character
    }
  }
  segments.push(paragraph.slice(start));
  return segments;
}
