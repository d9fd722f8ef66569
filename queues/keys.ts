/**
 * Every Redis key the product writes, by family, in one place (as BullMQ's `QueueKeys` names every
 * key of a queue). A family says whose its keys are — an organisation, a person, a session, a
 * turn, an admin action, or the deployment — and how long they live, and every key is built here
 * from its template. So a purge never has to guess: the organisation's deletion, the chat
 * retention sweep and a person's erasure ask the registry which families their owners have and
 * delete those keys (queues/key-purge.ts), instead of scanning for ids in key names.
 *
 * A family owned by someone either names its owner in the template (`ownerParam`), or says why it
 * cannot and expires on its own within minutes (`expiresOnly`); the type refuses anything else, so
 * a key nobody can erase does not compile. Only this file and queues/slots.ts spell the `skillnet:`
 * prefix (scripts/lint/redis-keys.ts).
 */
import { QUEUE_PREFIX } from "./names";
import { ownedKey } from "./slots";

export type KeyOwner = "organisation" | "person" | "session" | "turn" | "action" | "deployment";
/** Whoever a purge can remove keys for. */
export type Owner = Exclude<KeyOwner, "deployment">;

/** The `{name}` parameters of a template: `turn:{turnId}:log` → "turnId". */
export type ParamsOf<T extends string> = T extends `${string}{${infer P}}${infer Rest}` ? P | ParamsOf<Rest> : never;

/** How long a key lives: a fixed time, a setting's, or whatever its writer (BullMQ, a lease) keeps. */
export type KeyTtl = { seconds: number } | { setting: string } | { keptBy: string };

interface FamilyBase<T extends string> {
  /** The key after `skillnet:` (and the hash tag on a cluster); `{name}` marks a parameter. */
  template: T;
  ttl: KeyTtl;
  /**
   * Values of the template's other parameters when they are few: an owner's keys are then deleted
   * by name (no SCAN), as the retention sweep needs for thousands of turns at once.
   */
  values?: Partial<Record<ParamsOf<T>, readonly string[]>>;
  /** Keys placed on a cluster as before the tags existed: one plain name (sign-in codes, channels, BullMQ's own prefix). */
  untagged?: true;
}

/** Keys that name their owner: found and deleted by it. */
interface NamedOwnerFamily<T extends string> extends FamilyBase<T> {
  owner: Owner;
  ownerParam: ParamsOf<T>;
  /** The organisation the key belongs to, when the template names it too: its deletion finds the key whoever owns it. */
  orgParam?: ParamsOf<T>;
  /** Entries quote what people asked: a person's erasure drops the organisation's entries of this family too. */
  quotesPeople?: true;
  /**
   * The key is a set whose members complete the keys of another family (with this key's other
   * parameters): the owner's purge deletes those keys too. How a shared entry is traced to the
   * people it came from without carrying their ids in its name.
   */
  indexes?: { family: string; memberParam: string };
}

/** Keys whose name cannot carry their owner (a nonce, a batch id): they hold only seconds or minutes and are reached by their TTL. */
interface ExpiringFamily<T extends string> extends FamilyBase<T> {
  owner: Owner;
  ownerParam?: undefined;
  ttl: { seconds: number } | { setting: string };
  expiresOnly: string;
}

interface DeploymentFamily<T extends string> extends FamilyBase<T> {
  owner: "deployment";
}

export type KeyFamily<T extends string = string> = NamedOwnerFamily<T> | ExpiringFamily<T> | DeploymentFamily<T>;

/** Declares a family; its template's parameters become the builder's argument. */
export const family = <const T extends string>(spec: KeyFamily<T>): KeyFamily<T> => spec;

/** What a redelivered attempt of a tutor turn picks up instead of doing again (workers/turns/turn-state.ts). */
export const TURN_CHECKPOINTS = ["intent", "retrieval", "answer"] as const;
export type TurnCheckpoint = (typeof TURN_CHECKPOINTS)[number];

/** Covers backoff, stalled-job recovery and a long queue, and a database outage the job waits through; past it a stage runs again. */
export const CHECKPOINT_TTL_SECONDS = 3600;
/** Longer than any turn can wait in a queue or retry: the flag outlives every attempt, so one that starts late still stops. */
export const TURN_CANCEL_TTL_SECONDS = 24 * 3600;

export const KEY_FAMILIES = {
  turnCheckpoint: family({
    template: "turn:{turnId}:{checkpoint}",
    owner: "turn",
    ownerParam: "turnId",
    values: { checkpoint: TURN_CHECKPOINTS },
    ttl: { seconds: CHECKPOINT_TTL_SECONDS },
  }),
  turnCancel: family({ template: "turn:{turnId}:cancel", owner: "turn", ownerParam: "turnId", ttl: { seconds: TURN_CANCEL_TTL_SECONDS } }),
  turnLog: family({ template: "turn:{turnId}:log", owner: "turn", ownerParam: "turnId", ttl: { setting: "EVENT_STREAM_TTL_SECONDS" } }),
  actionLog: family({ template: "action:{actionId}:log", owner: "action", ownerParam: "actionId", ttl: { setting: "EVENT_STREAM_TTL_SECONDS" } }),
  latestTurn: family({ template: "session:{sessionId}:latest-turn", owner: "session", ownerParam: "sessionId", ttl: { setting: "EVENT_STREAM_TTL_SECONDS" } }),
  appendBatch: family({
    template: "append-batch:{batchId}",
    owner: "turn",
    ttl: { seconds: 60 },
    expiresOnly: "a replayed event batch's reply (seqs only), named by the batch; it lives a minute",
  }),
  idempotency: family({
    template: "idempotency:{scope}:{orgId}:{userId}:{hash}",
    owner: "person",
    ownerParam: "userId",
    orgParam: "orgId",
    ttl: { seconds: 24 * 3600 },
  }),
  socketLeases: family({
    template: "sockets:user:{userId}",
    owner: "person",
    ownerParam: "userId",
    ttl: { keptBy: "the socket leases (a minute past the last)" },
  }),
  /** One question's vector, shared by the organisation's people who asked it; each asker's index lists it. */
  questionEmbedding: family({
    template: "query-embedding:{orgId}:{hash}",
    owner: "organisation",
    ownerParam: "orgId",
    ttl: { setting: "EMBEDDING_QUERY_CACHE_TTL_SECONDS" },
  }),
  /** The questions a person asked (hashes of `questionEmbedding` entries): their erasure removes those entries, and only those. */
  questionsAsked: family({
    template: "query-embedding:{orgId}:asked-by:{userId}",
    owner: "person",
    ownerParam: "userId",
    orgParam: "orgId",
    indexes: { family: "questionEmbedding", memberParam: "hash" },
    ttl: { setting: "EMBEDDING_QUERY_CACHE_TTL_SECONDS" },
  }),
  contentGapReport: family({
    template: "content-gaps:{orgId}:{digest}",
    owner: "organisation",
    ownerParam: "orgId",
    quotesPeople: true,
    ttl: { setting: "CONTENT_GAP_CACHE_TTL_SECONDS" },
  }),
  contentGapWindows: family({ template: "content-gaps:{orgId}:windows:{hour}", owner: "organisation", ownerParam: "orgId", ttl: { seconds: 3600 } }),
  rateLimitOfPerson: family({ template: "rate-window:{bucket}:user:{userId}", owner: "person", ownerParam: "userId", ttl: { keptBy: "the limit's window" } }),
  rateLimitOfOrganisation: family({
    template: "rate-window:{bucket}:org:{orgId}",
    owner: "organisation",
    ownerParam: "orgId",
    ttl: { keptBy: "the limit's window" },
  }),
  /** Per caller: an address, an integration key, a SCIM token (the key's rows go with the organisation; the window expires within a minute). */
  rateLimitOfCaller: family({ template: "rate-window:{bucket}:{caller}", owner: "deployment", ttl: { keptBy: "the limit's window" } }),
  boardCode: family({
    template: "board-code:{code}",
    owner: "person",
    untagged: true,
    ttl: { setting: "BOARD_CODE_TTL_SECONDS" },
    expiresOnly: "a single-use sign-in code for Bull Board, named by the code; it lives seconds",
  }),
  ssoState: family({
    template: "sso:state:{state}",
    owner: "organisation",
    untagged: true,
    ttl: { seconds: 600 },
    expiresOnly: "a sign-in in progress, named by its OAuth state; nobody is signed in yet",
  }),
  ssoTestTicket: family({
    template: "sso:test:{ticket}",
    owner: "person",
    untagged: true,
    ttl: { seconds: 300 },
    expiresOnly: "an admin's identity-provider test, named by its ticket",
  }),
  samlRequest: family({
    template: "saml:request:{providerId}:{requestId}",
    owner: "organisation",
    untagged: true,
    ttl: { seconds: 600 },
    expiresOnly: "a SAML AuthnRequest or LogoutRequest we sent, awaiting its answer (InResponseTo); nobody is signed in yet",
  }),
  samlSession: family({
    template: "saml:session:{userId}:{familyId}",
    owner: "person",
    ownerParam: "userId",
    untagged: true,
    ttl: { setting: "REFRESH_TOKEN_TTL_SECONDS" },
  }),
  samlAssertionSeen: family({
    template: "saml:assertion:{providerId}:{assertionId}",
    owner: "organisation",
    untagged: true,
    ttl: { seconds: 900 },
    expiresOnly: "a SAML assertion already used, kept until it could no longer be accepted, so it cannot sign in twice",
  }),
  turnEventsChannel: family({ template: "turn-events", owner: "deployment", untagged: true, ttl: { keptBy: "pub/sub: a channel holds nothing" } }),
  jobEventsChannel: family({ template: "job-events", owner: "deployment", untagged: true, ttl: { keptBy: "pub/sub: a channel holds nothing" } }),
  userEventsChannel: family({ template: "user-events", owner: "deployment", untagged: true, ttl: { keptBy: "pub/sub: a channel holds nothing" } }),
  /** BullMQ's keys (`skillnet:<queue>:…`, tagged per queue copy by queues/layout.ts): BullMQ builds them itself. */
  queues: family({ template: "{queue}:{bullmqKey}", owner: "deployment", untagged: true, ttl: { keptBy: "BullMQ (queues/job-options.ts)" } }),
} as const;

export type KeyFamilyName = keyof typeof KEY_FAMILIES;
type TemplateOf<N extends KeyFamilyName> = (typeof KEY_FAMILIES)[N]["template"];
export type KeyParams<N extends KeyFamilyName> = Record<ParamsOf<TemplateOf<N>>, string>;

export const KEY_PREFIX = QUEUE_PREFIX;

function fill(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`Redis key ${template}: no value for {${name}}`);
    return value;
  });
}

/**
 * The key of `name` with these parameters. On a cluster it carries the hash tag of `tagId`
 * (default: the owner's id), so keys used together share a slot (queues/slots.ts).
 */
export function redisKey<N extends KeyFamilyName>(name: N, cluster: boolean, params: KeyParams<N>, tagId?: string): string {
  return keyOfFamily(KEY_FAMILIES[name], cluster, params as Record<string, string>, tagId);
}

/** `redisKey` for a family the caller holds (the purges): parameters by name, unchecked. */
export function keyOfFamily(spec: KeyFamily, cluster: boolean, params: Record<string, string>, tagId?: string): string {
  const key = fill(spec.template, params);
  if (spec.untagged) return `${KEY_PREFIX}:${key}`;
  const ownerParam = ownerParamOf(spec);
  const owner = tagId ?? (ownerParam ? (params as Record<string, string>)[ownerParam] : undefined);
  if (owner === undefined) throw new Error(`Redis key ${spec.template}: no owner id for its hash tag`);
  return ownedKey(cluster, owner, key);
}

/** The parameter naming a family's owner, if its keys carry it. */
export function ownerParamOf(spec: KeyFamily): string | undefined {
  return spec.owner === "deployment" ? undefined : (spec as NamedOwnerFamily<string> | ExpiringFamily<string>).ownerParam;
}

/** What a family owned by name declares beyond its owner (the organisation's parameter, an index, quoting people), if any. */
export const ownedByName = (spec: KeyFamily): NamedOwnerFamily<string> | undefined =>
  ownerParamOf(spec) === undefined ? undefined : (spec as NamedOwnerFamily<string>);

/** A pub/sub channel's name. */
export const channelName = (name: "turnEventsChannel" | "jobEventsChannel" | "userEventsChannel"): string => `${KEY_PREFIX}:${KEY_FAMILIES[name].template}`;

/** A family as the purges see it: its name and spec. */
export interface RegisteredFamily {
  name: KeyFamilyName;
  spec: KeyFamily;
}

export const REGISTERED_FAMILIES: readonly RegisteredFamily[] = Object.entries(KEY_FAMILIES).map(([name, spec]) => ({
  name: name as KeyFamilyName,
  spec: spec as KeyFamily,
}));

/** Every key of the family an owner has, by name, when its other parameters are enumerable; undefined when only a scan finds them. */
export function keysByName(family: KeyFamily, cluster: boolean, ownerId: string): string[] | undefined {
  const ownerParam = ownerParamOf(family);
  if (ownerParam === undefined) return undefined;
  let combos: Array<Record<string, string>> = [{ [ownerParam]: ownerId }];
  for (const [, name] of family.template.matchAll(/\{(\w+)\}/g)) {
    if (name === ownerParam) continue;
    const values = (family.values as Record<string, readonly string[]> | undefined)?.[name!];
    if (!values) return undefined;
    combos = combos.flatMap((combo) => values.map((value) => ({ ...combo, [name!]: value })));
  }
  return combos.map((params) => {
    const key = fill(family.template, params);
    return family.untagged ? `${KEY_PREFIX}:${key}` : ownedKey(cluster, ownerId, key);
  });
}

/** A reader of one family's keys: the value of each parameter of a key of it, or undefined for a key of another family. */
export function keyReader(family: KeyFamily): (key: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const body = family.template
    .split(/(\{\w+\})/)
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      if (!param) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(param[1]!);
      return "([^:]+)";
    })
    .join("");
  const pattern = new RegExp(`^${KEY_PREFIX}:(?:\\{[^}]+\\}:)?${body}$`);
  return (key) => {
    const match = pattern.exec(key);
    return match ? Object.fromEntries(names.map((name, index) => [name, match[index + 1]!])) : undefined;
  };
}
