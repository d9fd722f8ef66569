/**
 * A linear scan of HTML or XML into open tags, close tags and text, for extractors that keep their
 * own element stack. It drives htmlparser2's Tokenizer (a state machine, linear in the input)
 * directly rather than its Parser: the Parser's stack is quadratic on deep nesting (100,000
 * nested <div>s took 29 s), which an uploaded file must never be able to cause.
 */
import { Tokenizer } from "htmlparser2";

export interface MarkupHandler {
  /** A start tag with its attributes (names lower-cased in HTML, as written in XML). */
  open(name: string, attributes: Record<string, string>): void;
  /** An end tag as written, or right after `open` for `<x/>` in XML and HTML void elements. */
  close(name: string): void;
  /** Text with entities decoded, in document order, possibly in several pieces. */
  text(text: string): void;
}

/** HTML elements that never have content or an end tag. */
const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);

export function scanMarkup(source: string, handler: MarkupHandler, { xml }: { xml: boolean }): void {
  const name = (start: number, end: number) => (xml ? source.slice(start, end) : source.slice(start, end).toLowerCase());
  let tagName = "";
  let attributes: Record<string, string> = {};
  let attributeName = "";
  let attributeValue = "";

  const tokenizer = new Tokenizer(
    { xmlMode: xml, decodeEntities: true, recognizeSelfClosing: xml },
    {
      onopentagname(start, end) {
        tagName = name(start, end);
        attributes = {};
      },
      onattribname(start, end) {
        attributeName = name(start, end);
        attributeValue = "";
      },
      onattribdata(start, end) {
        attributeValue += source.slice(start, end);
      },
      onattribentity(codepoint) {
        attributeValue += String.fromCodePoint(codepoint);
      },
      onattribend() {
        if (!(attributeName in attributes)) attributes[attributeName] = attributeValue;
      },
      onopentagend() {
        handler.open(tagName, attributes);
        if (!xml && VOID_ELEMENTS.has(tagName)) handler.close(tagName);
      },
      onselfclosingtag() {
        handler.open(tagName, attributes);
        if (xml || VOID_ELEMENTS.has(tagName)) handler.close(tagName);
      },
      onclosetag(start, end) {
        const closing = name(start, end);
        // `</br>` is an HTML quirk for a line break; other void elements' end tags mean nothing.
        if (!xml && VOID_ELEMENTS.has(closing)) {
          if (closing === "br") {
            handler.open("br", {});
            handler.close("br");
          }
          return;
        }
        handler.close(closing);
      },
      ontext(start, end) {
        if (end > start) handler.text(source.slice(start, end));
      },
      ontextentity(codepoint) {
        handler.text(String.fromCodePoint(codepoint));
      },
      oncdata(start, end, offset) {
        if (xml) handler.text(source.slice(start, end - offset));
      },
      // Comments, doctypes and processing instructions (`<?xml …?>`) carry no content.
      oncomment() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      onend() {},
    },
  );
  tokenizer.write(source);
  tokenizer.end();
}
