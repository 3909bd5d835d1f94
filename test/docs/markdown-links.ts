/** A link written in a Markdown file: where it points, and the line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/**
 * The links of a Markdown text: inline links and images (`[text](target)`, `![alt](target)`) and reference
 * definitions (`[name]: target`), leaving out fenced code blocks and inline code, where brackets are not links.
 */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (fence) {
      if (opening && opening[1].startsWith(fence)) fence = undefined;
      return;
    }
    if (opening) {
      fence = opening[1];
      return;
    }
    const line = raw.replace(/(`+)[^`]*?\1/g, '');
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)/.exec(line);
    if (definition) links.push({ target: definition[1], line: index + 1 });
    for (const match of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: match[1], line: index + 1 });
    }
  });
  return links;
}

/** The anchors GitHub gives a Markdown text's headings (`## Running at scale` → `running-at-scale`). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const raw of text.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (fence) {
      if (opening && opening[1].startsWith(fence)) fence = undefined;
      continue;
    }
    if (opening) {
      fence = opening[1];
      continue;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!heading) continue;
    const slug = heading[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
