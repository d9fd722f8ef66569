/**
 * The pub/sub feeds every server listens to: turn events, job ends (metrics) and, on a cluster,
 * user events. On a single Redis each feed is one classic channel. On a Redis Cluster a classic
 * PUBLISH is copied to every node of the cluster (each node then serves it to its subscribers),
 * so its cost grows with the cluster; sharded pub/sub (SPUBLISH, Redis 7) stays on the node that
 * owns the channel's slot. There each feed is one sharded channel per key tag (`…:{k3.0}`): a
 * message goes to the channel with its owner's tag, the node that already holds the owner's log,
 * and every server subscribes to all of them (16 per feed, queues/slots.ts).
 */
import type { Redis } from "ioredis";
import { KEY_TAGS, keyTagOf } from "../slots";

/** The channel a message about `ownerId` is published on. */
export function feedChannel(cluster: boolean, feed: string, ownerId: string): string {
  return cluster ? `${feed}:${keyTagOf(ownerId)}` : feed;
}

/** Every channel of the feeds, to subscribe to. */
export function feedChannels(cluster: boolean, feeds: readonly string[]): string[] {
  return cluster ? feeds.flatMap((feed) => KEY_TAGS.map((tag) => `${feed}:${tag}`)) : [...feeds];
}

/** The feed a channel belongs to (its name without the tag). */
export function feedOf(channel: string): string {
  const tagged = channel.lastIndexOf(":{");
  return tagged > 0 && channel.endsWith("}") ? channel.slice(0, tagged) : channel;
}

/** PUBLISH on a single Redis, SPUBLISH on a cluster. */
export async function publishFeed(redis: Redis, channel: string, message: string): Promise<void> {
  await (redis.isCluster ? redis.spublish(channel, message) : redis.publish(channel, message));
}

/** Subscribes `subscriber` to the channels (SSUBSCRIBE on a cluster). */
export async function subscribeFeeds(subscriber: Redis, channels: string[]): Promise<void> {
  // One SSUBSCRIBE names channels of one slot only.
  if (subscriber.isCluster) await Promise.all(channels.map((channel) => subscriber.ssubscribe(channel)));
  else await subscriber.subscribe(...channels);
}
