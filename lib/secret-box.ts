/**
 * Secrets the product keeps in the database (an identity provider's client secret) are sealed
 * with AES-256-GCM under a key derived from SECRETS_KEY, so a database dump or a read replica
 * alone does not give them away. The sealed form names its version, so the scheme can change.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;

export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    // HKDF rather than the raw setting: any long string is a good key, and this key is never reused for anything else.
    this.key = Buffer.from(hkdfSync("sha256", secret, "skillnet-chat", "stored secrets v1", 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), sealed.toString("base64url")].join(".");
  }

  /** The secret, or null when it was sealed under another key (SECRETS_KEY changed) or altered. */
  open(sealed: string): string | null {
    const [version, iv, tag, body] = sealed.split(".");
    if (version !== VERSION || !iv || !tag || body === undefined) return null;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      return null;
    }
  }
}
