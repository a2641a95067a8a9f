/**
 * The release notes (CHANGELOG.md at the repository root) as a page. The file is ours and written in a
 * small subset of Markdown, which is all this renders: `#`/`##`/`###` headings, `- ` list items (a line
 * indented by two spaces continues the item), paragraphs, and inline `code`, **bold** and [links](url).
 * Everything is escaped first; a link is kept only when it is http(s) or a path on this origin. No
 * Markdown dependency: the subset is checked by test/gateway/changelog.test.ts, which renders the real file.
 */
import { html, trusted, type Html } from './html.js';
import type { PageOptions } from './layout.js';

const STYLE = `
.changelog h2{font-size:1.1rem;margin:2rem 0 .5rem;padding-top:1rem;border-top:1px solid var(--line)}
.changelog ul{padding-left:1.2rem}.changelog li{margin:.4rem 0}
.changelog code{word-break:normal;overflow-wrap:anywhere}
`;

/** `# Title`, then blocks: the page's title and its body. */
export function changelogPage(markdown: string): PageOptions {
  const blocks = markdownBlocks(markdown);
  const title = blocks[0]?.kind === 'h1' ? blocks.shift()!.text : 'Release notes';
  return {
    title,
    wide: true,
    extraStyle: STYLE,
    body: html`<article class="changelog"><h1>${title}</h1>
<p class="muted">Also as Markdown: <a href="/changelog.md">/changelog.md</a> · the API reference: <a href="/docs">/docs</a></p>
${blocks.map(renderBlock)}</article>`,
  };
}

interface Block { kind: 'h1' | 'h2' | 'h3' | 'p' | 'ul'; text: string; items: string[] }

/** Headings, paragraphs and lists, in order (blank lines separate paragraphs). */
function markdownBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let open: Block | null = null;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const heading = /^(#{1,3}) (.+)$/.exec(line);
    if (heading) {
      blocks.push({ kind: `h${heading[1]!.length}` as Block['kind'], text: heading[2]!.trim(), items: [] });
      open = null;
    } else if (line.startsWith('- ')) {
      if (open?.kind !== 'ul') blocks.push((open = { kind: 'ul', text: '', items: [] }));
      open.items.push(line.slice(2).trim());
    } else if (line.trim() === '') {
      open = null;
    } else if (open?.kind === 'ul' && /^\s/.test(line)) {
      open.items[open.items.length - 1] += ` ${line.trim()}`;
    } else if (open?.kind === 'p') {
      open.text += ` ${line.trim()}`;
    } else {
      blocks.push((open = { kind: 'p', text: line.trim(), items: [] }));
    }
  }
  return blocks;
}

function renderBlock(block: Block): Html {
  switch (block.kind) {
    case 'ul': return html`<ul>${block.items.map((item) => html`<li>${inline(item)}</li>`)}</ul>\n`;
    case 'p': return html`<p>${inline(block.text)}</p>\n`;
    default: return html`${trusted(`<${block.kind}>`)}${inline(block.text)}${trusted(`</${block.kind}>`)}\n`;
  }
}

/** `code`, **bold** and [text](url) inside escaped text; anything else stays literal. */
function inline(text: string): Html {
  const parts: Html[] = [];
  const pattern = /`([^`]+)`|\*\*(.+?)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let at = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    parts.push(html`${text.slice(at, match.index)}`);
    if (match[1] !== undefined) parts.push(html`<code>${match[1]}</code>`);
    else if (match[2] !== undefined) parts.push(html`<strong>${inline(match[2])}</strong>`);
    else if (/^(https?:\/\/|\/(?!\/))/.test(match[4]!)) parts.push(html`<a href="${match[4]!}">${match[3]!}</a>`);
    else parts.push(html`${match[0]}`);
    at = match.index + match[0].length;
  }
  parts.push(html`${text.slice(at)}`);
  return html`${parts}`;
}
