/**
 * Builds the server's dependencies from config and starts HTTP + Socket.IO. Shutdown runs in
 * order: stop accepting HTTP, close sockets (clients reconnect elsewhere), let requests in
 * flight finish, then queues, Redis and the database pool.
 */
import { refuseIfDatabaseFull } from "../db/connection-limit";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Config, requireSetting } from "../lib/config";
import { componentLogger } from "../lib/logger";
import { isLoopbackHost } from "../lib/loopback";
import { createDb } from "../db/knex";
import { createRedis, redisTargetOf, replicaWaitMs } from "../queues/connection";
import { TurnEventLog } from "../queues/events/turn-stream";
import { queueLayoutOf } from "../queues/layout";
import { JobProducer } from "../queues/producer";
import { createApp } from "./app";
import { TokenService } from "./auth/tokens";
import { ProviderTokens } from "./auth/provider-tokens";
import type { ServerDeps } from "./deps";
import { ServerMetrics } from "./metrics";
import { attachGateway } from "./sockets/gateway";
import { outboundClientOf } from "../lib/outbound/client-of-config";
import { refuseSsoWithoutPublicUrl } from "./auth/sso/public-url-required";

export interface RunningServer {
  url: string;
  deps: ServerDeps;
  close(): Promise<void>;
}

export async function startServer(config: Config, { port = config.server.PORT, host = config.server.HOST } = {}): Promise<RunningServer> {
  const log = componentLogger("server");
  const redisTarget = redisTargetOf(config);
  await refuseIfDatabaseFull(requireSetting(config.database, "DATABASE_URL"), config.database.DATABASE_POOL_MAX);
  const db = createDb({
    url: requireSetting(config.database, "DATABASE_URL"),
    poolMax: config.database.DATABASE_POOL_MAX,
    statementTimeoutMs: config.database.DATABASE_STATEMENT_TIMEOUT_MS,
    acquireTimeoutMs: config.database.DATABASE_POOL_ACQUIRE_TIMEOUT_MS,
  });
  await refuseSsoWithoutPublicUrl(config, db).catch(async (error: unknown) => {
    await db.destroy();
    throw error;
  });
  const redis = createRedis(redisTarget, "producer", log);
  // Enqueueing happens inside requests: fail fast, like every other command the server sends.
  const queueRedis = createRedis(redisTarget, "producer", log);
  const producer = new JobProducer(queueRedis, log, queueLayoutOf(config));
  const deps: ServerDeps = {
    config,
    log,
    db,
    redis,
    producer,
    events: new TurnEventLog(redis, {
      ttlSeconds: config.redis.EVENT_STREAM_TTL_SECONDS,
      maxEvents: config.redis.EVENT_STREAM_MAX_EVENTS,
      replicaWaitMs: replicaWaitMs(config),
    }),
    tokens: new TokenService(
      {
        secret: requireSetting(config.auth, "JWT_SECRET"),
        ttlSeconds: config.auth.JWT_TTL_SECONDS,
        maxTtlSeconds: config.auth.JWT_MAX_TTL_SECONDS,
        issuer: config.auth.JWT_ISSUER,
        audience: config.auth.JWT_AUDIENCE,
      },
      new ProviderTokens(
        db,
        {
          maxTtlSeconds: config.auth.JWT_MAX_TTL_SECONDS,
          httpTimeoutMs: config.auth.OIDC_HTTP_TIMEOUT_MS,
          jwksCooldownMs: config.auth.OIDC_JWKS_COOLDOWN_SECONDS * 1000,
          jwksMaxAgeMs: config.auth.OIDC_JWKS_MAX_AGE_SECONDS * 1000,
          http: outboundClientOf(config),
        },
        log.child({ component: "provider-tokens" }),
      ),
    ),
    metrics: new ServerMetrics({ producer, redis, db, log }),
  };

  const app = createApp(deps);
  const httpServer = createServer(app.callback());
  const gateway = await attachGateway(httpServer, deps, () => createRedis(redisTarget, "subscriber", log));
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(port, host, () => resolve());
  });
  const address = httpServer.address() as AddressInfo;
  const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${address.port}`;
  log.info({ url }, "server listening");
  if (config.auth.DEV_LOGIN_ENABLED && !isLoopbackHost(host)) {
    log.warn({ host }, "dev-login is enabled on a non-loopback address: anyone who can reach this port can sign in as any user by email");
  }

  return {
    url,
    deps,
    async close() {
      // Stop accepting first, so a load balancer's next connection goes to another node.
      const drained = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      // Each socket sees `transport close`, which socket.io clients answer by reconnecting
      // (through the load balancer, to another node) and rejoining with their lastSeq.
      await gateway.close();
      await drained; // requests in flight finish; the process's grace period bounds the wait
      await deps.events.flushed();
      await deps.producer.close();
      await Promise.allSettled([redis.quit(), queueRedis.quit()]);
      await db.destroy();
      log.info("server stopped");
    },
  };
}
