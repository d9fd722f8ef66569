/**
 * A SAML message on the HTTP-Redirect binding (our SLO URL), read before node-saml sees it:
 * inflated with a ceiling (a few kilobytes of deflate can expand to megabytes), refused with a
 * DOCTYPE as the ACS refuses one, and held to what single logout needs to be safe:
 *
 * - a LogoutRequest ends someone's sessions, so it must carry the redirect binding's signature
 *   (node-saml only checks one that is present) and have been issued recently;
 * - a LogoutResponse changes nothing here, but it must answer a logout we sent, and each of ours
 *   is answered once (its id is used up).
 */
import { inflateRawSync } from "node:zlib";
import { parseSafeXml, SAML_XML_MAX_BYTES, UnsafeXml } from "../../../lib/saml/safe-xml";
import { SignInFailure } from "../sso/failures";
import { SAML_ASSERTION_MAX_AGE_MS, SAML_CLOCK_SKEW_MS, type SamlRequestCache } from "./request-cache";

export interface RedirectQuery {
  SAMLRequest?: unknown;
  SAMLResponse?: unknown;
  Signature?: unknown;
  SigAlg?: unknown;
}

export type LogoutMessage = { kind: "request" } | { kind: "response"; inResponseTo: string };

const reject = (detail: string) => new SignInFailure("SIGN_IN_REJECTED", detail);

/** The XML of a redirect-binding message, or UnsafeXml when it inflates past the ceiling, is not deflate, or has a DOCTYPE. */
export function inflateRedirectMessage(encoded: string, maxBytes = SAML_XML_MAX_BYTES): string {
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(Buffer.from(encoded, "base64"), { maxOutputLength: maxBytes });
  } catch (error) {
    const tooLarge = error instanceof RangeError || (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
    throw new UnsafeXml(tooLarge ? "too_large" : "malformed", tooLarge ? `inflates past ${maxBytes} bytes` : "not raw deflate");
  }
  return inflated.toString("utf8");
}

function recentlyIssued(issueInstant: string | null, now: number): boolean {
  const issued = issueInstant ? Date.parse(issueInstant) : Number.NaN;
  return !Number.isNaN(issued) && issued <= now + SAML_CLOCK_SKEW_MS && now - SAML_CLOCK_SKEW_MS <= issued + SAML_ASSERTION_MAX_AGE_MS;
}

/** What the message is, once it is known to be acceptable before its signature (node-saml checks that next). */
export function readLogoutMessage(query: RedirectQuery): LogoutMessage {
  const request = typeof query.SAMLRequest === "string" ? query.SAMLRequest : undefined;
  const response = typeof query.SAMLResponse === "string" ? query.SAMLResponse : undefined;
  if ((request === undefined) === (response === undefined)) throw reject("expected exactly one of SAMLRequest and SAMLResponse");
  const root = parseSafeXml(inflateRedirectMessage((request ?? response)!)).documentElement!;
  if (request !== undefined) {
    if (root.localName !== "LogoutRequest") throw reject("SAMLRequest is not a LogoutRequest");
    if (typeof query.Signature !== "string" || typeof query.SigAlg !== "string") throw reject("an unsigned LogoutRequest");
    if (!recentlyIssued(root.getAttribute("IssueInstant"), Date.now())) throw reject("the LogoutRequest's IssueInstant is not recent");
    return { kind: "request" };
  }
  if (root.localName !== "LogoutResponse") throw reject("SAMLResponse is not a LogoutResponse");
  const inResponseTo = root.getAttribute("InResponseTo");
  if (!inResponseTo) throw reject("a LogoutResponse to no logout of ours");
  return { kind: "response", inResponseTo };
}

/** Uses up the logout request a LogoutResponse answers; refuses one we did not send or that was answered already. */
export async function consumeLogoutRequest(requests: SamlRequestCache, message: LogoutMessage): Promise<void> {
  if (message.kind === "response" && !(await requests.consume(message.inResponseTo)))
    throw reject("a LogoutResponse to a logout we did not send or that was already answered");
}
