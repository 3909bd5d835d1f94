// A small XML writer for BCF: the files are a few elements each, and no XML library is among the dependencies.

/** An element to write: a name, attributes (undefined ones are left out) and children, text or elements. */
export interface XmlElement {
  name: string;
  attributes?: Record<string, string | number | boolean | undefined>;
  children?: readonly (XmlElement | string | undefined)[];
}

/** Shorthand for an {@link XmlElement}. */
export function el(
  name: string,
  attributes: XmlElement['attributes'],
  ...children: (XmlElement | string | undefined)[]
): XmlElement {
  return { name, attributes, children };
}

/** An element holding one number or text, e.g. `<X>1.5</X>`. */
export function leaf(name: string, value: string | number): XmlElement {
  return { name, children: [typeof value === 'number' ? xmlNumber(value) : value] };
}

/** A number as xs:double reads it: the shortest text that gives the same double back. */
export function xmlNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`cannot write ${value} as an XML number`);
  return String(value);
}

/** Escapes text for element content and double-quoted attributes. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** Writes a whole document, UTF-8 declaration first, indented two spaces. */
export function xmlDocument(root: XmlElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${write(root, '')}\n`;
}

function write(element: XmlElement, indent: string): string {
  const attributes = Object.entries(element.attributes ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}="${escapeXml(String(value))}"`)
    .join('');
  const children = (element.children ?? []).filter((child) => child !== undefined);
  if (children.length === 0) return `${indent}<${element.name}${attributes}/>`;
  if (children.every((child) => typeof child === 'string')) {
    return `${indent}<${element.name}${attributes}>${escapeXml(children.join(''))}</${element.name}>`;
  }
  const inner = children
    .map((child) =>
      typeof child === 'string' ? `${indent}  ${escapeXml(child)}` : write(child, `${indent}  `),
    )
    .join('\n');
  return `${indent}<${element.name}${attributes}>\n${inner}\n${indent}</${element.name}>`;
}
