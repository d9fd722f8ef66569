/**
 * The sign-in services of one server: the providers' openid-client configurations (cached) and the
 * pending sign-ins. Kept per ServerDeps (a WeakMap, not a module-level singleton), so a test or a
 * second server in the same process gets its own cache and its own settings.
 */
import { outboundClientOf } from "../../../lib/outbound/client-of-config";
import type { ServerDeps } from "../../deps";
import { PendingSignIns } from "./pending-sign-ins";
import { ProviderClients } from "./provider-client";

export interface SsoServices {
  clients: ProviderClients;
  pending: PendingSignIns;
}

const byDeps = new WeakMap<ServerDeps, SsoServices>();

export function ssoOf(deps: ServerDeps): SsoServices {
  let services = byDeps.get(deps);
  if (!services) {
    services = {
      clients: new ProviderClients(deps.config.auth.SECRETS_KEY, deps.config.auth.OIDC_HTTP_TIMEOUT_MS, outboundClientOf(deps.config)),
      pending: new PendingSignIns(deps.redis),
    };
    byDeps.set(deps, services);
  }
  return services;
}
