/** JWTs (HS256) carrying who the caller is: user id, org id and role. */
import { SignJWT, jwtVerify } from "jose";
import { z } from "zod";

export const principalSchema = z.object({
  userId: z.uuid(),
  orgId: z.uuid(),
  role: z.enum(["admin", "employee"]),
});
export type Principal = z.infer<typeof principalSchema>;

const ISSUER = "skillnet-chat";

export class TokenService {
  private readonly key: Uint8Array;

  constructor(secret: string, private readonly ttlSeconds: number) {
    this.key = new TextEncoder().encode(secret);
  }

  async sign(principal: Principal): Promise<string> {
    return new SignJWT({ org: principal.orgId, role: principal.role })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(principal.userId)
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
  }

  /** The caller, or null for any token that is malformed, expired, forged or incomplete. */
  async verify(token: string): Promise<Principal | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"], issuer: ISSUER });
      const parsed = principalSchema.safeParse({ userId: payload.sub, orgId: payload.org, role: payload.role });
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }
}
