/**
 * The enabled identity providers by issuer, held in memory so a token naming an issuer nobody
 * configured is refused without a query: the socket handshake checks signatures before its rate
 * limit, and a flood of made-up issuers must cost nothing there. The list is read again every
 * `ttlMs`, and at most once per `missReloadMs` when a token names an issuer it does not hold (a
 * provider saved a moment ago on another node). A provider disabled since is still refused at
 * once: the database step re-reads the provider (`ProviderTokens.confirm`).
 */
import { isOidcProvider, listEnabledIdentityProviders } from "../../db/queries/identity";
import type { Db } from "../../db/knex";
import { apiAudienceOf } from "./token-claims";

/** What a token check needs of a provider; the client secret stays out of memory. */
export interface KnownProvider {
  id: string;
  orgId: string;
  issuer: string;
  /** The `aud` its API tokens must carry. */
  audience: string;
  /** That audience is the client id, which an ID token issued to our client carries too: its API tokens must show they are access tokens. */
  audienceIsClientId: boolean;
}

export interface ProviderDirectorySettings {
  ttlMs: number;
  missReloadMs: number;
  now?: () => number;
}

export class ProviderDirectory {
  private byIssuer = new Map<string, KnownProvider[]>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly settings: ProviderDirectorySettings,
  ) {
    this.now = settings.now ?? (() => Date.now());
  }

  /** Every enabled provider with this issuer (several organisations may share one, e.g. Google). */
  async providersFor(issuer: string): Promise<KnownProvider[]> {
    const age = this.now() - this.loadedAt;
    if (age >= this.settings.ttlMs || (!this.byIssuer.has(issuer) && age >= this.settings.missReloadMs)) await this.reload();
    return this.byIssuer.get(issuer) ?? [];
  }

  private reload(): Promise<void> {
    this.pending ??= listEnabledIdentityProviders(this.db)
      .then((rows) => {
        const next = new Map<string, KnownProvider[]>();
        for (const row of rows.filter(isOidcProvider)) {
          const known = {
            id: row.id,
            orgId: row.org_id,
            issuer: row.issuer,
            audience: apiAudienceOf(row),
            audienceIsClientId: apiAudienceOf(row) === row.client_id,
          };
          next.set(row.issuer, [...(next.get(row.issuer) ?? []), known]);
        }
        this.byIssuer = next;
        this.loadedAt = this.now();
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
