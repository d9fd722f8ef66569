/** What every job handler may use, built once per worker process. */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "../lib/config";
import type { Db } from "../db/knex";
import type { ReadRouter } from "../db/read-replica";
import type { TurnEventLog } from "../queues/events/turn-stream";
import type { JobProducer } from "../queues/producer";
import type { UserEventPublisher } from "../queues/events/user-events";
import type { LlmClient } from "./llm/client";
import type { SearchCaches } from "./search-caches";

export interface WorkerDeps {
  config: Config;
  log: Logger;
  db: Db;
  /** Retrieval searches and conversation history: the read replica when it is usable, else `db` (db/read-replica.ts). */
  reads: ReadRouter;
  redis: Redis;
  events: TurnEventLog;
  userEvents: UserEventPublisher;
  producer: JobProducer;
  llm: LlmClient;
  /** What searches and publishing remember between jobs (workers/search-caches.ts): one per process. */
  searchCaches: SearchCaches;
}
