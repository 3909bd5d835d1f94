/** Client of a model's share links (`/api/models/:id/shares`, catalog envelope). */
import { request } from './http.ts';

/** A share link: the public page of one model. */
export interface ShareLink {
  id: string;
  url: string;
  created_at: string;
  /** Whether the page shows the model's annotations (read-only). */
  annotations?: boolean;
}

/** Options of a new link. */
export interface NewShare {
  /** Show the model's annotations on the page. */
  annotations: boolean;
}

const sharesPath = (modelId: string) => `/api/models/${encodeURIComponent(modelId)}/shares`;

/** The model's links, oldest first. */
export async function listShares(modelId: string): Promise<ShareLink[]> {
  return ((await request(sharesPath(modelId))) as { data: ShareLink[] }).data;
}

/** Creates a new link to the model. */
export async function createShare(modelId: string, options: NewShare): Promise<ShareLink> {
  return ((await request(sharesPath(modelId), { method: 'POST', body: options })) as { data: ShareLink })
    .data;
}

/** Revokes a link; its page stops working at once. */
export async function revokeShare(modelId: string, shareId: string): Promise<void> {
  await request(`${sharesPath(modelId)}/${encodeURIComponent(shareId)}`, { method: 'DELETE' });
}

/** The iframe snippet that embeds a link's bare viewer, as `/oembed` also gives it. */
export function embedSnippet(link: ShareLink, title: string): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return (
    `<iframe src="${escape(`${link.url}?embed=1`)}" width="640" height="480" title="${escape(title)}" ` +
    `style="border:0" allow="fullscreen" loading="lazy"></iframe>`
  );
}
