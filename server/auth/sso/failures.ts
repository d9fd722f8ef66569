/**
 * Every way a single sign-on can fail, with the status of the page the browser lands on and a
 * sentence a person can act on. The callback never answers JSON: it ends on a page
 * (result-page.ts) and signs nobody in.
 */
export const SIGN_IN_FAILURES = {
  SIGN_IN_STATE_INVALID: {
    status: 400,
    message: "This sign-in link has expired, was already used, or was started in another browser. Start again from the sign-in page.",
  },
  SIGN_IN_CROSS_SITE: {
    status: 403,
    message: "This sign-in was started by another website, not from our sign-in page. If you meant to sign in, start again from the sign-in page.",
  },
  SIGN_IN_PROVIDER_REFUSED: { status: 400, message: "Your identity provider did not sign you in." },
  SIGN_IN_REJECTED: {
    status: 400,
    message: "The answer from your identity provider could not be verified (the code was already used, or the ID token is not valid). Start again.",
  },
  SIGN_IN_REPLAYED: { status: 400, message: "This answer from your identity provider was already used to sign in. Start again from the sign-in page." },
  SIGN_IN_IDP_INITIATED_OFF: {
    status: 403,
    message: "Your organisation only accepts sign-ins started here, not from your identity provider's portal. Start from the sign-in page.",
  },
  SIGN_IN_MESSAGE_REFUSED: { status: 400, message: "The answer from your identity provider was not acceptable XML. Start again." },
  SIGN_IN_UNAVAILABLE: { status: 503, message: "Sign-in could not be completed just now. Try again in a moment." },
  IDP_UNAVAILABLE: { status: 504, message: "Your identity provider did not answer in time. Try again in a moment." },
  SIGN_IN_PROVIDER_DISABLED: { status: 403, message: "Sign-in with this identity provider is turned off for your organisation." },
  EMAIL_MISSING: { status: 403, message: "Your identity provider did not send an email address, so we cannot tell who you are." },
  EMAIL_NOT_VERIFIED: { status: 403, message: "Your identity provider says your email address is not verified." },
  DOMAIN_NOT_ALLOWED: { status: 403, message: "Your email domain is not one your organisation signs in with here." },
  DOMAIN_NOT_VERIFIED: {
    status: 403,
    message: "Your organisation has not verified your email domain yet, so it cannot sign you in by it. Ask its admin to verify the domain.",
  },
  NO_ACCOUNT: { status: 403, message: "You have no account here yet. Ask your organisation's admin to add you." },
  WRONG_ORGANISATION: { status: 403, message: "Your account belongs to another organisation; this provider cannot sign you in to it." },
  LINKED_TO_ANOTHER_PROVIDER: {
    status: 403,
    message: "Your account signs in through another of your organisation's identity providers. Start again from the sign-in page and use that one.",
  },
  ACCOUNT_DEACTIVATED: { status: 403, message: "This account has been deactivated." },
} as const;

export type SignInFailureCode = keyof typeof SIGN_IN_FAILURES;

export class SignInFailure extends Error {
  readonly status: number;

  constructor(
    readonly code: SignInFailureCode,
    /** For the log only; never shown (it may name another organisation). */
    readonly detail?: string,
  ) {
    super(SIGN_IN_FAILURES[code].message);
    this.name = "SignInFailure";
    this.status = SIGN_IN_FAILURES[code].status;
  }
}
