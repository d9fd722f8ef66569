/**
 * `Idempotency-Key` for the POSTs that create something (a chat turn, a document). The first
 * request with a key reserves it atomically (SET NX) with a fingerprint of its body; its 2xx
 * answer is then remembered for 24 h and a retry with the same key and body gets that answer
 * again (same status and body, header `Idempotent-Replayed: true`) without running anything:
 * one turn, one job, one model call. The same key with another body is a 422. A duplicate that
 * arrives while the first is still running waits briefly for its answer, else gets a 409.
 * An error answer is not remembered: the key is released, so the client can simply retry
 * (nothing was created by a request that failed; a 5xx is usually transient).
 *
 * Why Redis and not a Postgres table: the reservation needs an atomic "set if absent" with an
 * expiry, which Redis gives in one command, and 24 h of memory needs no sweeper. The turn the
 * key protects lives in the same Redis (its queued job), so losing Redis loses both together:
 * a retry after that starts the turn afresh, which is what the client needs anyway.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Context, Middleware } from "koa";
import { redisKey } from "../../queues/keys";
import { principalOf } from "../auth/middleware";
import { badRequest } from "../errors";
import { Refusal } from "../../lib/refusal";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** How long a completed request's answer is replayed. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** A reservation held by a request still running lapses after this (a crashed node's, say). */
const IN_PROGRESS_SECONDS = 120;
/** How long a concurrent duplicate waits for the first request's answer before a 409. */
const DUPLICATE_WAIT_MS = 3_000;
const DUPLICATE_POLL_MS = 50;
const MAX_KEY_CHARS = 255;

type KeyRecord = { state: "in_progress"; fingerprint: string; token: string } | { state: "completed"; fingerprint: string; status: number; body: unknown };

// Completes or releases a reservation, but only the one this request made.
const SETTLE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current or cjson.decode(current).token ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
return 1
`;

export interface IdempotencyOptions {
  /** The endpoint; a key is remembered per scope, organisation and user. */
  scope: string;
  /** What makes two requests "the same" (a hash of the body). Runs after `admit`. */
  fingerprint(ctx: Context): Promise<string> | string;
  /** The cost check a first run pays and a replay does not (the rate limit). */
  admit?(ctx: Context): Promise<void>;
}

/** Runs the route once per key; see the module comment. Without the header, it only calls `admit`. */
export function idempotent(redis: Redis, options: IdempotencyOptions): Middleware {
  return async (ctx, next) => {
    const key = idempotencyKeyOf(ctx);
    if (key === undefined) {
      await options.admit?.(ctx);
      return next();
    }
    const { orgId, userId } = principalOf(ctx);
    const recordKey = redisKey("idempotency", redis.isCluster, { scope: options.scope, orgId, userId, hash: sha256(key) });
    const seen = await readRecord(redis, recordKey);
    if (!seen) await options.admit?.(ctx);
    const fingerprint = await options.fingerprint(ctx);
    const token = randomUUID();
    const reserved =
      !seen &&
      (await redis.set(recordKey, JSON.stringify({ state: "in_progress", fingerprint, token } satisfies KeyRecord), "EX", IN_PROGRESS_SECONDS, "NX")) === "OK";
    if (!reserved) return answerFromRecord(ctx, redis, recordKey, seen, fingerprint);

    try {
      await next();
    } catch (error) {
      await settle(redis, recordKey, token, null).catch(() => undefined);
      throw error;
    }
    const remembered =
      ctx.status >= 200 && ctx.status < 300 ? ({ state: "completed", fingerprint, status: ctx.status, body: ctx.body } satisfies KeyRecord) : null;
    await settle(redis, recordKey, token, remembered);
  };
}

/** The header, validated: undefined when absent, 400 when empty, too long or not printable ASCII. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const raw = ctx.headers[IDEMPOTENCY_HEADER.toLowerCase()];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(", ") : raw;
  if (value.length === 0 || value.length > MAX_KEY_CHARS || !/^[\x20-\x7e]+$/.test(value)) {
    throw badRequest(`${IDEMPOTENCY_HEADER} must be 1 to ${MAX_KEY_CHARS} printable ASCII characters`);
  }
  return value;
}

/** A JSON body's fingerprint; key order does not matter, so a re-serialised retry still matches. */
export function jsonFingerprint(ctx: Context): string {
  return sha256(canonicalJson(ctx.request.body ?? null));
}

export function sha256(value: string | Buffer): string {
  return createHash("sha256").update(value).digest("hex");
}

async function answerFromRecord(ctx: Context, redis: Redis, recordKey: string, seen: KeyRecord | null, fingerprint: string): Promise<void> {
  let record = seen ?? (await readRecord(redis, recordKey));
  const deadline = Date.now() + DUPLICATE_WAIT_MS;
  while (record?.state === "in_progress" && record.fingerprint === fingerprint && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, DUPLICATE_POLL_MS));
    record = await readRecord(redis, recordKey);
  }
  if (record && record.fingerprint !== fingerprint) {
    throw new Refusal(
      "key_reused",
      "IDEMPOTENCY_KEY_REUSED",
      `This ${IDEMPOTENCY_HEADER} was already used with a different request body; use a new key for a new request`,
    );
  }
  if (record?.state !== "completed") {
    // Still running, or the first attempt failed and let the key go: retrying is safe either way.
    throw new Refusal(
      "conflict",
      "IDEMPOTENCY_IN_PROGRESS",
      `A request with this ${IDEMPOTENCY_HEADER} is still being processed (or has just failed); retry shortly with the same key`,
      { retry_after: 1 },
    );
  }
  ctx.status = record.status;
  ctx.body = record.body;
  ctx.set("Idempotent-Replayed", "true");
}

async function readRecord(redis: Redis, recordKey: string): Promise<KeyRecord | null> {
  const raw = await redis.get(recordKey);
  return raw ? (JSON.parse(raw) as KeyRecord) : null;
}

async function settle(redis: Redis, recordKey: string, token: string, record: KeyRecord | null): Promise<void> {
  await redis.eval(SETTLE_SCRIPT, 1, recordKey, token, record ? JSON.stringify(record) : "", String(IDEMPOTENCY_TTL_SECONDS));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
