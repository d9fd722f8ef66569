/**
 * What a command needs. Both `ServerDeps` and `WorkerDeps` have these members, so a route, the
 * socket gateway and a job handler call the same command with the deps they already hold.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Db } from "../db/knex";
import type { TurnEventLog } from "../queues/events/turn-stream";
import type { JobProducer } from "../queues/producer";

export interface CommandDeps {
  log: Logger;
  db: Db;
  redis: Redis;
  producer: JobProducer;
  events: TurnEventLog;
}
