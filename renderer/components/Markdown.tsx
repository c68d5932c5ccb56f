/**
 * Agent text rendered as GitHub-flavoured Markdown, code highlighted; raw HTML is never rendered.
 * The text is split into its top-level blocks (`markdownBlocks`) and each block is parsed once
 * (memoized by its text): while a reply streams only its last, still growing block is parsed
 * again, and a finished message is never parsed again while others stream.
 */
import { Fragment, memo, type ReactElement, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { CodeBlock, ExternalLink } from './CodeBlock.js';
import { markdownBlocks } from './markdownBlocks.js';

const remarkPlugins = [remarkGfm];
// Unknown or unlabelled languages stay plain rather than guessed. The highlighter is made once and
// shared: rehype-highlight's attacher builds a highlighter with every grammar registered (and
// compiled on first use), which is most of the cost when many blocks render at once. It is made
// when the first block renders, not when the page loads (40–60 ms of every start, with or without
// a message on screen).
let highlight: ReturnType<typeof rehypeHighlight> | undefined;
const rehypePlugins: NonNullable<Parameters<typeof ReactMarkdown>[0]['rehypePlugins']> = [
  () => (highlight ??= rehypeHighlight({ detect: false })),
];
const components: Components = { pre: CodeBlock as Components['pre'], a: ExternalLink as Components['a'] };
/** A segment of a long paragraph renders its inline content only; the paragraph element is shared. */
const segmentComponents: Components = { ...components, p: ({ children }: { children?: ReactNode }) => <Fragment>{children}</Fragment> };

/**
 * Rendered blocks by text, most recently used last: a block scrolled out of a virtualized
 * transcript and back in (or shown again after "Show earlier") is not parsed again. React elements
 * are immutable, so one can be rendered any number of times.
 */
const rendered = new Map<string, ReactElement>();
const RENDERED_KEPT = 3_000;

function renderBlock(text: string, segment: boolean): ReactElement {
  const key = `${segment ? 's' : 'b'}${text}`;
  const cached = rendered.get(key);
  if (cached) {
    rendered.delete(key);
    rendered.set(key, cached);
    return cached;
  }
  const element = ReactMarkdown({ children: text, remarkPlugins, rehypePlugins, components: segment ? segmentComponents : components });
  rendered.set(key, element);
  if (rendered.size > RENDERED_KEPT) {
    rendered.delete(rendered.keys().next().value!);
  }
  return element;
}

/** One block, parsed once per text. */
const Block = memo(function Block({ text, segment = false }: { text: string; segment?: boolean }) {
  return renderBlock(text, segment);
});

/** Markdown body of a message (memoized: it renders again only when its text changes). */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const blocks = markdownBlocks(text);
  return (
    <div className="markdown">
      {blocks.map((block, index) =>
        block.segments ? (
          <p key={index}>
            {block.segments.map((segment, part) => (
              <Fragment key={part}>
                {part > 0 ? ' ' : null}
                <Block text={segment} segment />
              </Fragment>
            ))}
          </p>
        ) : (
          <Block key={index} text={block.text} />
        ),
      )}
    </div>
  );
});
