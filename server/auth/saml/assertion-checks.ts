/**
 * What we check of a SAML response ourselves once node-saml has verified the assertion's
 * signature, its audience, its Conditions' times and (when the Response names one) its
 * InResponseTo. All read from the *signed* assertion node-saml returns, except the Response's own
 * Destination and InResponseTo, which may be unsigned and so can only ever make us refuse more:
 *
 * - the Response's Destination, when present, and the bearer SubjectConfirmationData's Recipient
 *   (required) are our ACS URL for this provider;
 * - the SubjectConfirmationData's NotOnOrAfter (required) has not passed, NotBefore has come;
 * - a response is solicited only by the signed assertion's InResponseTo, which names a request we
 *   sent and uses it up (once, across processes); a Response naming an id the assertion does not is
 *   refused; a response to no request at all (IdP-initiated) only when the provider allows it;
 * - the assertion has an ID, so request-cache.ts can refuse it the second time.
 */
import type { Element } from "@xmldom/xmldom";
import { parseSafeXml } from "../../../lib/saml/safe-xml";
import { SignInFailure } from "../sso/failures";
import { SAML_CLOCK_SKEW_MS, type SamlRequestCache } from "./request-cache";

const SAML = "urn:oasis:names:tc:SAML:2.0:assertion";
const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";

export interface CheckedAssertion {
  assertionId: string;
  /** When the assertion stops being acceptable: the replay record lives until then. */
  notOnOrAfterMs: number;
  /** Whether it answers a request we sent (false: IdP-initiated). */
  solicited: boolean;
}

const reject = (detail: string) => new SignInFailure("SIGN_IN_REJECTED", detail);

function timeOf(value: string | null, what: string): number | undefined {
  if (value === null || value === "") return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw reject(`${what} is not a time`);
  return ms;
}

function bearerConfirmation(assertion: Element, acsUrl: string, now: number): { notOnOrAfterMs: number; inResponseTo: string | null } {
  const confirmations = Array.from(assertion.getElementsByTagNameNS(SAML, "SubjectConfirmation")).filter(
    (confirmation) => confirmation.getAttribute("Method") === BEARER,
  );
  for (const confirmation of confirmations) {
    const data = confirmation.getElementsByTagNameNS(SAML, "SubjectConfirmationData")[0];
    if (!data || data.getAttribute("Recipient") !== acsUrl) continue;
    const notOnOrAfter = timeOf(data.getAttribute("NotOnOrAfter"), "SubjectConfirmationData NotOnOrAfter");
    const notBefore = timeOf(data.getAttribute("NotBefore"), "SubjectConfirmationData NotBefore");
    if (notOnOrAfter === undefined || now - SAML_CLOCK_SKEW_MS >= notOnOrAfter) continue;
    if (notBefore !== undefined && now + SAML_CLOCK_SKEW_MS < notBefore) continue;
    return { notOnOrAfterMs: notOnOrAfter, inResponseTo: data.getAttribute("InResponseTo") || null };
  }
  throw reject("no bearer SubjectConfirmation for our ACS URL that is valid now (Recipient or NotOnOrAfter)");
}

export async function checkAssertion(
  responseXml: string,
  signedAssertionXml: string,
  expect: { acsUrl: string; allowIdpInitiated: boolean; requests: SamlRequestCache },
): Promise<CheckedAssertion> {
  const response = parseSafeXml(responseXml).documentElement!;
  const destination = response.getAttribute("Destination");
  if (destination && destination !== expect.acsUrl) throw reject(`Destination ${destination} is not our ACS URL`);
  const assertion = parseSafeXml(signedAssertionXml).documentElement!;
  const assertionId = assertion.getAttribute("ID");
  if (!assertionId) throw reject("the assertion has no ID");
  const now = Date.now();
  const confirmation = bearerConfirmation(assertion, expect.acsUrl, now);
  const conditions = assertion.getElementsByTagNameNS(SAML, "Conditions")[0];
  const conditionsEnd = conditions ? timeOf(conditions.getAttribute("NotOnOrAfter"), "Conditions NotOnOrAfter") : undefined;
  const responseInResponseTo = response.getAttribute("InResponseTo") || null;
  // The Response's InResponseTo is not signed: it may only agree with the signed assertion's, never make a response solicited.
  if (responseInResponseTo !== null && responseInResponseTo !== confirmation.inResponseTo)
    throw reject("the Response names a request the signed assertion does not answer");
  if (confirmation.inResponseTo && !(await expect.requests.consume(confirmation.inResponseTo)))
    throw reject("the assertion answers a request we did not send or that was already answered");
  const solicited = confirmation.inResponseTo !== null;
  if (!solicited && !expect.allowIdpInitiated) throw new SignInFailure("SIGN_IN_IDP_INITIATED_OFF", "unsolicited response");
  return { assertionId, notOnOrAfterMs: Math.min(confirmation.notOnOrAfterMs, conditionsEnd ?? Number.POSITIVE_INFINITY), solicited };
}
