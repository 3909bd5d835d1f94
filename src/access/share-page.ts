import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatCsp, pageCspDirectives } from '../http/security-headers.ts';

/**
 * The share page's policy: the viewer's own (scripts from the origin only, no inline script) except that any
 * site may frame it, which is what an embed is. Every other page keeps `frame-ancestors 'none'`.
 */
export function sharePageCsp(fileOrigins: string[]): string {
  return formatCsp({ ...pageCspDirectives(fileOrigins), 'frame-ancestors': ['*'] });
}

/** The page shown for a revoked or unknown link: static, no script. */
export const SHARE_PAGE_GONE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Link not available · Vitrine</title>
    <link rel="icon" href="data:," />
  </head>
  <body style="font-family: system-ui, sans-serif; margin: 3rem; color: #222">
    <h1 class="share-gone">This link is not available</h1>
    <p>It was revoked, or never existed. Ask whoever sent it for a new one.</p>
  </body>
</html>
`;

/** What the share page's head names: the model's title and the oEmbed discovery link. */
export interface SharePageMeta {
  title: string;
  /** The share page's own URL, without query. */
  pageUrl: string;
  /** Base of this service's URLs. */
  baseUrl: string;
}

/**
 * The built `share.html` with the model's name as title and an oEmbed discovery link, or undefined when the viewer
 * is not built. Read on each request, like index.html, so a rebuild is served without a restart.
 */
export async function renderSharePage(distDir: string, meta: SharePageMeta): Promise<string | undefined> {
  let html: string;
  try {
    html = await readFile(join(distDir, 'share.html'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const oembed = `${meta.baseUrl}/oembed?url=${encodeURIComponent(meta.pageUrl)}&format=json`;
  const head =
    `<title>${escapeHtml(meta.title)} · Vitrine</title>\n` +
    `    <link rel="alternate" type="application/json+oembed" href="${escapeHtml(oembed)}" title="${escapeHtml(meta.title)}" />\n`;
  return html.replace(/<title>[^<]*<\/title>\n?/, head);
}

/** Escapes text for an HTML attribute or element. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
