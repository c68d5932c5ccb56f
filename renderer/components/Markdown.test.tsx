// @vitest-environment happy-dom
/** Agent text as Markdown: tables and code render, raw HTML never does, links leave Baton's page. */
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Markdown } from './Markdown.js';

afterEach(cleanup);

describe('Markdown', () => {
  it('renders a table and a highlighted code block with its language and a copy button', () => {
    const { container } = render(<Markdown text={'| a | b |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst x: number = 1;\n```'} />);
    expect(screen.getByRole('table')).toBeTruthy();
    expect(screen.getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['1', '2']);
    expect(container.querySelector('.code-language')?.textContent).toBe('ts');
    expect(container.querySelector('.hljs-keyword')?.textContent).toBe('const');
    expect(screen.getByRole('button', { name: 'Copy ts code' })).toBeTruthy();
  });

  it('never renders raw HTML from an agent: a script, an image with a handler, an iframe stay text or nothing', () => {
    const { container } = render(
      <Markdown text={'Hi <script>alert(1)</script> <img src=x onerror="alert(2)"> <iframe src="https://example.com"></iframe>'} />,
    );
    expect(container.querySelector('script, img, iframe, [onerror]')).toBeNull();
    // Shown as the text the agent wrote, not as elements.
    expect(container.textContent).toContain('<script>alert(1)</script>');
  });

  it('opens links outside Baton, without telling the other site where they came from', () => {
    render(<Markdown text={'See [the docs](https://example.com/docs).'} />);
    const link = screen.getByRole('link', { name: 'the docs' });
    expect(link.getAttribute('href')).toBe('https://example.com/docs');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('drops a javascript: link target', () => {
    render(<Markdown text={'[click](javascript:alert(1))'} />);
    const link = screen.getByText('click').closest('a');
    expect(link?.getAttribute('href') ?? '').not.toMatch(/^javascript:/i);
  });
});
