/**
 * What single logout needs of a SAML sign-in: the NameID and SessionIndex the IdP gave, kept in
 * Redis under the person and the refresh family it began, as long as that family may live. Our
 * sign-out reads it to send the IdP a LogoutRequest for exactly that session.
 */
import type { Profile } from "@node-saml/node-saml";
import type { Redis } from "ioredis";
import { z } from "zod";
import { redisKey } from "../../../queues/keys";

const sessionSchema = z.object({ nameID: z.string(), nameIDFormat: z.string(), sessionIndex: z.string().optional() });
export type SamlSession = z.infer<typeof sessionSchema>;

const keyOf = (userId: string, familyId: string) => redisKey("samlSession", false, { userId, familyId });

export async function rememberSamlSession(redis: Redis, userId: string, familyId: string, profile: Profile, ttlSeconds: number): Promise<void> {
  const session: SamlSession = {
    nameID: profile.nameID,
    nameIDFormat: profile.nameIDFormat ?? "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
    ...(profile.sessionIndex ? { sessionIndex: profile.sessionIndex } : {}),
  };
  await redis.set(keyOf(userId, familyId), JSON.stringify(session), "EX", ttlSeconds);
}

/** The session's NameID and SessionIndex, once (single logout uses it up). */
export async function takeSamlSession(redis: Redis, userId: string, familyId: string): Promise<SamlSession | null> {
  const raw = await redis.getdel(keyOf(userId, familyId));
  const parsed = raw ? sessionSchema.safeParse(JSON.parse(raw)) : undefined;
  return parsed?.success ? parsed.data : null;
}
