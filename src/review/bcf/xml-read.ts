// A small, strict XML reader for BCF files: elements, attributes, text, CDATA and the predefined and numeric
// entities. Document type declarations are refused, so no entity expansion can blow a small file up; nesting is
// capped, so a small file of deeply nested elements cannot exhaust the stack.

/** An element as read: its local name (any namespace prefix dropped), attributes, child elements and text. */
export interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  /** The element's own text, entities decoded, CDATA kept as written. */
  text: string;
}

/** A file that is not well-formed XML (or uses a DOCTYPE), with where it went wrong. */
export class XmlError extends Error {
  override readonly name = 'XmlError';
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** Deepest element nesting read; BCF files nest a few levels, and each level is a frame of the reader's stack. */
export const MAX_XML_DEPTH = 256;

/** Whether a code point is a character XML allows (its `Char` production). */
function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}
const NAME = /^[A-Za-z_][\w.:-]*/;

/** Characters XML forbids even written out: controls other than tab and line ends, and U+FFFE, U+FFFF. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const FORBIDDEN_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** Parses a document and returns its root element; throws {@link XmlError} on anything malformed. */
export function parseXml(source: string): XmlNode {
  let at = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (what: string): never => {
    const line = source.slice(0, at).split('\n').length;
    throw new XmlError(`${what} (line ${line})`);
  };
  // Checked once up front: such a character (a NUL above all) would reach the database, which refuses it.
  const forbidden = FORBIDDEN_CHAR.exec(source);
  if (forbidden) {
    at = forbidden.index;
    const code = forbidden[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    fail(`U+${code} is not a character XML allows`);
  }
  const skipMisc = () => {
    for (;;) {
      while (at < source.length && /\s/.test(source[at]!)) at++;
      if (source.startsWith('<?', at)) at = endOf('?>', 'an unclosed processing instruction');
      else if (source.startsWith('<!--', at)) at = endOf('-->', 'an unclosed comment');
      else if (source.startsWith('<!DOCTYPE', at)) fail('a DOCTYPE is not accepted');
      else return;
    }
  };
  const endOf = (marker: string, what: string) => {
    const end = source.indexOf(marker, at);
    if (end < 0) fail(what);
    return end + marker.length;
  };
  const decode = (text: string) =>
    text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);?/g, (whole, entity: string) => {
      if (!whole.endsWith(';')) fail(`an unterminated entity "${whole}"`);
      if (entity.startsWith('#')) {
        const code = entity.startsWith('#x') ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
        // Out of Unicode's range (String.fromCodePoint would throw) or a character XML forbids.
        if (!isXmlChar(code)) fail(`"${whole}" is not a character XML allows`);
        return String.fromCodePoint(code);
      }
      return ENTITIES[entity] ?? fail(`an unknown entity "&${entity};"`);
    });
  const localName = (name: string) => name.slice(name.indexOf(':') + 1);

  const element = (depth: number): XmlNode => {
    if (depth > MAX_XML_DEPTH) fail(`elements are nested deeper than ${MAX_XML_DEPTH} levels`);
    if (source[at] !== '<') fail('an element was expected');
    at++;
    const name = NAME.exec(source.slice(at, at + 200))?.[0] ?? fail('an element name was expected');
    at += name.length;
    const node: XmlNode = { name: localName(name), attributes: {}, children: [], text: '' };
    for (;;) {
      while (/\s/.test(source[at] ?? '')) at++;
      if (source.startsWith('/>', at)) {
        at += 2;
        return node;
      }
      if (source[at] === '>') break;
      const attribute = NAME.exec(source.slice(at, at + 200))?.[0] ?? fail(`a bad attribute in <${name}>`);
      at += attribute.length;
      while (/\s/.test(source[at] ?? '')) at++;
      if (source[at] !== '=') fail(`attribute ${attribute} has no value`);
      at++;
      while (/\s/.test(source[at] ?? '')) at++;
      const quote = source[at];
      if (quote !== '"' && quote !== "'") fail(`attribute ${attribute} is not quoted`);
      const end = source.indexOf(quote!, at + 1);
      if (end < 0) fail(`attribute ${attribute} is not closed`);
      node.attributes[localName(attribute)] = decode(source.slice(at + 1, end));
      at = end + 1;
    }
    at++;
    for (;;) {
      const next = source.indexOf('<', at);
      if (next < 0) fail(`<${name}> is not closed`);
      node.text += decode(source.slice(at, next));
      at = next;
      if (source.startsWith('</', at)) {
        const close = source.indexOf('>', at);
        if (close < 0 || source.slice(at + 2, close).trim() !== name)
          fail(`<${name}> is closed by another tag`);
        at = close + 1;
        return node;
      }
      if (source.startsWith('<![CDATA[', at)) {
        const end = source.indexOf(']]>', at);
        if (end < 0) fail('an unclosed CDATA section');
        node.text += source.slice(at + 9, end);
        at = end + 3;
      } else if (source.startsWith('<!--', at)) at = endOf('-->', 'an unclosed comment');
      else if (source.startsWith('<?', at)) at = endOf('?>', 'an unclosed processing instruction');
      else node.children.push(element(depth + 1));
    }
  };

  skipMisc();
  const root = element(1);
  skipMisc();
  if (at < source.length) fail('content after the root element');
  return root;
}

/** The first child element of `node` with this local name, or undefined. */
export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((candidate) => candidate.name === name);
}

/** Every child element of `node` with this local name. */
export function childrenNamed(node: XmlNode | undefined, name: string): XmlNode[] {
  return node?.children.filter((candidate) => candidate.name === name) ?? [];
}

/** The trimmed text of the child element with this name, or undefined when it is missing or blank. */
export function childText(node: XmlNode | undefined, name: string): string | undefined {
  const text = child(node, name)?.text.trim();
  return text ? text : undefined;
}
