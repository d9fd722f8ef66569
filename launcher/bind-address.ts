/**
 * Where `npm start` binds the server. dev-login signs anyone in by email, so while it is on the
 * server listens on 127.0.0.1 only; an operator who sets HOST keeps it, and is told loudly what
 * that exposes.
 */
import { parseConfig } from "../lib/config";
import { isLoopbackHost } from "../lib/loopback";

/** `loopback`: only this machine; `exposed`: dev-login reachable from elsewhere; else as configured. */
export type Exposure = "loopback" | "exposed" | "as-configured";

/** Sets `env.HOST` to 127.0.0.1 when dev-login is on and HOST is unset; warns when HOST exposes it. */
export function chooseBindAddress(env: Record<string, string | undefined>, warn: (host: string) => void): Exposure {
  if (!parseConfig(env).auth.DEV_LOGIN_ENABLED) return "as-configured";
  if (env.HOST === undefined) {
    env.HOST = "127.0.0.1";
    return "loopback";
  }
  if (isLoopbackHost(env.HOST)) return "loopback";
  warn(env.HOST);
  return "exposed";
}

/** The banner line that says where dev-login can be reached from, if anywhere noteworthy. */
export function exposureBannerLine(exposure: Exposure, host: string | undefined, port: number): string | undefined {
  if (exposure === "loopback") return "  Listening on   127.0.0.1 only, because dev-login is on (set HOST to change it)";
  if (exposure === "exposed") return `  WARNING        dev-login is on and HOST=${host} EXPOSES IT: anyone who reaches port ${port} can sign in as any user`;
  return undefined;
}
