/**
 * A person who may no longer use the product (deactivated by an admin, SCIM or the assistant;
 * deleted by SCIM; erased) loses every open socket on every server node as soon as the change
 * commits: `auth_expired {ACCOUNT_INACTIVE}`, then the disconnect, published through Redis. The
 * gateway's periodic re-check stays as the safety net for a socket a lost message missed.
 */
import type { Redis } from "ioredis";
import { UserEventPublisher } from "../queues/events/user-events";
import { afterCommit, type Transaction } from "./transaction";

export function cutSocketsOnCommit(trx: Transaction, deps: { redis: Redis }, userId: string): void {
  afterCommit(trx, () => new UserEventPublisher(deps.redis).cutSockets(userId));
}
