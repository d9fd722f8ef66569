/**
 * The operator's shared secret (METRICS_TOKEN) for machine endpoints: Prometheus scrapes and the
 * detailed readiness report. Compared in constant time so response timing leaks nothing about it.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "koa";

const digest = (value: string): Buffer => createHash("sha256").update(value).digest();

/** True when the request carries `Authorization: Bearer <token>` for this (set) token. */
export function hasOpsToken(ctx: Context, token: string | undefined): boolean {
  if (!token) return false;
  const match = /^Bearer\s+(.+)$/i.exec(ctx.get("authorization"));
  // Hashing first gives equal lengths, which timingSafeEqual needs.
  return Boolean(match) && timingSafeEqual(digest(match![1]!.trim()), digest(token));
}
