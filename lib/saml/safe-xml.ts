/**
 * SAML messages and IdP metadata come from outside, so they are parsed defensively before any
 * library sees them: bounded in size, and refused outright when they carry a document type
 * declaration — SAML never needs one, and a DOCTYPE is how entity expansion (billion laughs) and
 * external entities get in. Refusal is a plain string check, so it costs nothing whatever follows.
 */
import { type Document, DOMParser } from "@xmldom/xmldom";

export const SAML_XML_MAX_BYTES = 256 * 1024;

export type UnsafeXmlReason = "too_large" | "doctype" | "malformed";

export class UnsafeXml extends Error {
  constructor(
    readonly reason: UnsafeXmlReason,
    detail: string,
  ) {
    super(detail);
    this.name = "UnsafeXml";
  }
}

/** Throws UnsafeXml unless the text is small and has no DOCTYPE (nor a processing of entities). */
export function refuseUnsafeXml(xml: string, maxBytes = SAML_XML_MAX_BYTES): void {
  if (Buffer.byteLength(xml, "utf8") > maxBytes) throw new UnsafeXml("too_large", `XML larger than ${maxBytes} bytes`);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new UnsafeXml("doctype", "XML with a document type declaration");
}

/** The document, parsed strictly (any parser error or warning about structure refuses it). */
export function parseSafeXml(xml: string, maxBytes = SAML_XML_MAX_BYTES): Document {
  refuseUnsafeXml(xml, maxBytes);
  const fail = (message: string) => {
    throw new UnsafeXml("malformed", message);
  };
  const doc = new DOMParser({ onError: (level, message) => level !== "warning" && fail(message) }).parseFromString(xml, "text/xml");
  if (!doc.documentElement) throw new UnsafeXml("malformed", "no root element");
  return doc;
}
