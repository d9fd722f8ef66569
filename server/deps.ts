/** What the server's routes and socket gateway need, built once per process by `server/main.ts`. */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "../lib/config";
import type { Db } from "../db/knex";
import type { JobProducer } from "../queues/producer";
import type { TurnEventLog } from "../queues/events/turn-stream";
import type { TokenService } from "./auth/tokens";
import type { ServerMetrics } from "./metrics";

export interface ServerDeps {
  config: Config;
  log: Logger;
  db: Db;
  /** Fail-fast connection for commands issued while serving a request. */
  redis: Redis;
  producer: JobProducer;
  events: TurnEventLog;
  tokens: TokenService;
  metrics: ServerMetrics;
}
