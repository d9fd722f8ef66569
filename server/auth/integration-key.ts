/**
 * The edge of the integration endpoints: `Authorization: Bearer skn_…`, a live key of the
 * organisation (401 INTEGRATION_KEY_INVALID otherwise) holding the route's scope (403
 * INTEGRATION_SCOPE_MISSING), counted against INTEGRATION_RATE_LIMIT_PER_MINUTE per key. A key
 * works only while the admin who created it is an active admin of its organisation (checked at
 * every request: 401 INTEGRATION_KEY_CREATOR_INACTIVE once they are demoted, deactivated or
 * erased, by whatever path). The key
 * names the organisation: nothing in a request body or path can point it at another one.
 * A request with a write scope leaves one audit row, whatever its outcome. Keys are not JWTs, so
 * every other route (chat, the admin assistant) refuses them by construction.
 */
import type { AuditActor } from "../../db/queries/audit-log";
import type { Context, Middleware, Next } from "koa";
import { recordIntegrationWrite } from "../../commands/integration-keys";
import { findLiveIntegrationKey, touchIntegrationKey, type IntegrationKeyRow } from "../../db/queries/integration-keys";
import { WRITE_SCOPES, type IntegrationScope } from "../../lib/integration-scopes";
import { Refusal } from "../../lib/refusal";
import type { ServerDeps } from "../deps";
import { statusOf } from "../errors";
import { RateLimiter } from "../middleware/rate-limit";

/** Who is calling an integration endpoint: the key's organisation and the key itself. */
export interface IntegrationCaller {
  orgId: string;
  key: Pick<IntegrationKeyRow, "id" | "name" | "hint" | "scopes">;
  /** The admin who created the key, an active admin of the organisation at this request (else it was refused). */
  creatorId: string;
}

export function integrationCallerOf(ctx: Context): IntegrationCaller {
  const caller = ctx.state.integration as IntegrationCaller | undefined;
  if (!caller) throw invalidKey();
  return caller;
}

const invalidKey = (): Refusal =>
  new Refusal(
    "unauthenticated",
    "INTEGRATION_KEY_INVALID",
    "A live integration key is required: Authorization: Bearer skn_… (admin console, Integrations). It may have been revoked or have expired.",
  );

export function requireIntegrationKey(deps: Pick<ServerDeps, "db" | "redis" | "config" | "log">, scope: IntegrationScope): Middleware {
  const limiter = new RateLimiter(deps.redis);
  const log = deps.log.child({ component: "integration-key" });
  return async (ctx: Context, next: Next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get("authorization"));
    const key = match?.[1] ? await findLiveIntegrationKey(deps.db, match[1]) : undefined;
    if (!key) throw invalidKey();
    if (!key.creator_is_admin) {
      throw new Refusal(
        "unauthenticated",
        "INTEGRATION_KEY_CREATOR_INACTIVE",
        "This integration key's creator is no longer an active admin of the organisation, so the key no longer works; an admin must create a new one.",
      );
    }
    if (!key.scopes.includes(scope)) {
      throw new Refusal(
        "forbidden",
        "INTEGRATION_SCOPE_MISSING",
        `This endpoint needs an integration key with the "${scope}" scope; this key has ${key.scopes.join(", ")}.`,
        {
          scope,
        },
      );
    }
    await limiter.consume(key.id, { bucket: "integration", limit: deps.config.rateLimits.INTEGRATION_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 });
    await touchIntegrationKey(deps.db, key);
    ctx.state.integration = {
      orgId: key.org_id,
      key: { id: key.id, name: key.name, hint: key.hint, scopes: key.scopes },
      creatorId: key.created_by as string,
    } satisfies IntegrationCaller;
    if (!WRITE_SCOPES.has(scope)) return next();
    let status = 500;
    try {
      await next();
      status = ctx.status;
    } catch (caught) {
      status = statusOf(caught);
      throw caught;
    } finally {
      const requestId = ctx.response.get("X-Request-Id");
      await recordIntegrationWrite(deps, key, { method: ctx.method, path: ctx.path, status, scope, ...(requestId ? { requestId } : {}) }).catch(
        (error: unknown) => log.error({ err: error, keyId: key.id }, "could not audit an integration write"),
      );
    }
  };
}

/** The key as an audit event's actor (the admin who created it is not the one acting). */
export function integrationActor(caller: IntegrationCaller): AuditActor {
  return { type: "integration_key", id: caller.key.id, personId: null, name: caller.key.name, hint: caller.key.hint };
}
