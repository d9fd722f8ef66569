/**
 * The platform operator: admins of the organisation named by OPS_ORG. Only they may see Bull
 * Board, because it shows and controls every tenant's jobs.
 */
import type { Middleware } from "koa";
import type { Config } from "../../lib/config";
import type { Db } from "../../db/knex";
import { organisationHasSlug } from "../../db/queries/users";
import { forbidden } from "../errors";
import { principalOf } from "./middleware";
import type { Principal } from "./tokens";

type OperatorDeps = { db: Db; config: Pick<Config, "server"> };

/** True when the caller is an admin of the operator organisation (OPS_ORG). */
export async function isOperator(deps: OperatorDeps, principal: Principal): Promise<boolean> {
  if (principal.role !== "admin" || !deps.config.server.OPS_ORG) return false;
  return organisationHasSlug(deps.db, principal.orgId, deps.config.server.OPS_ORG);
}

export function operatorOnlyMessage(deps: OperatorDeps): string {
  return deps.config.server.OPS_ORG
    ? "Bull Board is for admins of the operator organisation (OPS_ORG) only"
    : "Bull Board is disabled: set OPS_ORG to the slug of the operator organisation";
}

/** The refusal of an operator endpoint of the API (`access: "operator"`). */
export function operatorEndpointMessage(deps: OperatorDeps): string {
  return deps.config.server.OPS_ORG
    ? "This endpoint is for admins of the operator organisation (OPS_ORG) only"
    : "Operator endpoints are disabled: set OPS_ORG to the slug of the operator organisation";
}

export function requireOperator(deps: OperatorDeps, refusal: (deps: OperatorDeps) => string = operatorOnlyMessage): Middleware {
  return async (ctx, next) => {
    if (!(await isOperator(deps, principalOf(ctx)))) throw forbidden(refusal(deps));
    await next();
  };
}
