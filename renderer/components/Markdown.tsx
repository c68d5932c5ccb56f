/**
 * Agent text rendered as GitHub-flavoured Markdown, code highlighted; raw HTML is never rendered.
 * The text is split into its top-level blocks (`markdownBlocks`) and each block is parsed once
 * (memoized by its text): while a reply streams only its last, still growing block is parsed
 * again, and a finished message is never parsed again while others stream.
 */
import { Fragment, memo, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { CodeBlock, ExternalLink } from './CodeBlock.js';
import { markdownBlocks } from './markdownBlocks.js';

const remarkPlugins = [remarkGfm];
// Unknown or unlabelled languages stay plain rather than guessed.
const rehypePlugins: NonNullable<Parameters<typeof ReactMarkdown>[0]['rehypePlugins']> = [[rehypeHighlight, { detect: false, ignoreMissing: true }]];
const components: Components = { pre: CodeBlock as Components['pre'], a: ExternalLink as Components['a'] };
/** A segment of a long paragraph renders its inline content only; the paragraph element is shared. */
const segmentComponents: Components = { ...components, p: ({ children }: { children?: ReactNode }) => <Fragment>{children}</Fragment> };

/** One block, parsed once per text. */
const Block = memo(function Block({ text, segment = false }: { text: string; segment?: boolean }) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={segment ? segmentComponents : components}>
      {text}
    </ReactMarkdown>
  );
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
