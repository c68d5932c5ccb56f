/**
 * Agent text rendered as GitHub-flavoured Markdown, code highlighted; raw HTML is never rendered.
 * Parsed once per text (memoized): a finished message is not parsed again while others stream.
 */
import { memo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { CodeBlock, ExternalLink } from './CodeBlock.js';

const remarkPlugins = [remarkGfm];
// Unknown or unlabelled languages stay plain rather than guessed.
const rehypePlugins: NonNullable<Parameters<typeof ReactMarkdown>[0]['rehypePlugins']> = [[rehypeHighlight, { detect: false, ignoreMissing: true }]];
const components: Components = { pre: CodeBlock as Components['pre'], a: ExternalLink as Components['a'] };

/** Markdown body of a message. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
