/**
 * A fenced code block in a message: highlighted (highlight.js classes through rehype-highlight),
 * with its language and a copy button. Links in messages open outside Baton.
 */
import type { ReactNode } from 'react';
import { useCopy } from './useCopy.js';

type HastNode = { type: string; value?: string; tagName?: string; properties?: { className?: unknown }; children?: HastNode[] };

/** The plain text of a syntax-tree node (what the copy button copies). */
function textOf(node: HastNode | undefined): string {
  if (!node) {
    return '';
  }
  if (node.type === 'text') {
    return node.value ?? '';
  }
  return (node.children ?? []).map(textOf).join('');
}

/** The language named by the fence (`language-ts` on the code element), if any. */
function languageOf(node: HastNode | undefined): string | undefined {
  const code = node?.children?.find((child) => child.tagName === 'code');
  const classes = code?.properties?.className;
  const names = Array.isArray(classes) ? classes.map(String) : typeof classes === 'string' ? classes.split(' ') : [];
  return names.find((name) => name.startsWith('language-'))?.slice('language-'.length);
}

/** Replaces `pre` in rendered Markdown. */
export function CodeBlock({ node, children }: { node?: HastNode; children?: ReactNode }) {
  const [copied, copy] = useCopy();
  const language = languageOf(node);
  return (
    <div className="code-block">
      <div className="code-header">
        <span className="code-language">{language ?? 'text'}</span>
        <button
          type="button"
          className="code-copy"
          aria-label={`${copied ? 'Copied' : 'Copy'} ${language ?? ''} code`.replace('  ', ' ')}
          onClick={() => copy(textOf(node).replace(/\n$/, ''))}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre>{children}</pre>
    </div>
  );
}

/** Replaces `a`: opens in the system browser (Electron) or a new tab (web host), never in Baton's own page. */
export function ExternalLink({ href, children }: { href?: string; children?: ReactNode }) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}
