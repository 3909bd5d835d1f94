// The XML reader behind the BCF import: well-formed files in, entities and CDATA decoded, namespace prefixes
// dropped; malformed files and document type declarations (entity expansion) refused with the line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { child, childText, MAX_XML_DEPTH, parseXml, XmlError } from '../../src/review/bcf/xml-read.ts';
import { el, leaf, xmlDocument } from '../../src/review/bcf/xml-write.ts';

void describe('BCF XML reader', () => {
  void it('reads elements, attributes, entities, CDATA and prefixed names', () => {
    const root = parseXml(`\ufeff<?xml version="1.0"?>
<!-- a comment -->
<b:Markup xmlns:b="urn:x"><Topic Guid='g&amp;1' TopicType="Issue">
  <Title>A &lt;b&gt; &#233;&#x4e2d;</Title><Description><![CDATA[raw <text> & more]]></Description><Empty/>
</Topic></b:Markup>`);
    assert.equal(root.name, 'Markup');
    const topic = child(root, 'Topic')!;
    assert.deepEqual(topic.attributes, { Guid: 'g&1', TopicType: 'Issue' });
    assert.equal(childText(topic, 'Title'), 'A <b> é中');
    assert.equal(childText(topic, 'Description'), 'raw <text> & more');
    assert.equal(childText(topic, 'Empty'), undefined);
  });

  void it('reads back what the writer writes, numbers to the last bit', () => {
    const text = 'Line 1\nquotes " and <tags> & ampersands';
    const value = 0.1 + 0.2;
    const root = parseXml(xmlDocument(el('A', { Note: text }, leaf('B', text), leaf('X', value))));
    assert.equal(root.attributes.Note, text);
    assert.equal(child(root, 'B')!.text, text);
    assert.equal(Number(childText(root, 'X')), value);
  });

  void it('reads elements nested as deep as the cap, and the highest code point', () => {
    let node = parseXml(`${'<A>'.repeat(MAX_XML_DEPTH)}&#x10FFFF;${'</A>'.repeat(MAX_XML_DEPTH)}`);
    for (let depth = 1; depth < MAX_XML_DEPTH; depth++) node = node.children[0]!;
    assert.equal(node.text, '\u{10FFFF}');
  });

  void it('refuses malformed files and any DOCTYPE, naming the line', () => {
    const cases: [string, RegExp][] = [
      ['<A><B></A>', /<B> is closed by another tag \(line 1\)/],
      ['<A>\n<B x=1/></A>', /attribute x is not quoted \(line 2\)/],
      ['<A>&bogus;</A>', /unknown entity "&bogus;"/],
      ['<A>', /<A> is not closed/],
      ['<A/><B/>', /content after the root element/],
      ['<!DOCTYPE A [<!ENTITY x "xx">]><A>&x;</A>', /a DOCTYPE is not accepted/],
      ['just text', /an element was expected/],
      ['<A>\nnul \u0000 here</A>', /U\+0000 is not a character XML allows \(line 2\)/],
      ['<A>&#x110000;</A>', /"&#x110000;" is not a character XML allows/],
      ['<A B="&#0;"/>', /"&#0;" is not a character XML allows/],
      ['<A>&#99999999999999999999;</A>', /is not a character XML allows/],
      [`${'<A>'.repeat(MAX_XML_DEPTH + 1)}${'</A>'.repeat(MAX_XML_DEPTH + 1)}`, /nested deeper than 256/],
      // Far past what the stack holds in recursion: the cap answers long before.
      [`${'<A>'.repeat(600_000)}${'</A>'.repeat(600_000)}`, /nested deeper than 256/],
    ];
    for (const [source, message] of cases) {
      assert.throws(
        () => parseXml(source),
        (error: Error) => error instanceof XmlError && message.test(error.message),
      );
    }
  });
});
