/**
 * A service provider's key pair for SAML: an RSA key and a self-signed X.509 certificate around
 * its public half. SAML metadata carries keys as certificates, but nothing checks their chain or
 * dates (the IdP pins the certificate it was given), so a self-signed one, written here in DER by
 * hand, is what every SP library makes; Node has no API to create one.
 */
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";

function length(size: number): Buffer {
  if (size < 0x80) return Buffer.from([size]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const der = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const sequence = (...content: Buffer[]) => der(0x30, ...content);
const SHA256_WITH_RSA = sequence(der(0x06, Buffer.from("2a864886f70d01010b", "hex")), Buffer.from([0x05, 0x00]));
const COMMON_NAME = Buffer.from("550403", "hex");

function time(date: Date): Buffer {
  // GeneralizedTime, valid for every year (UTCTime stops at 2049).
  const text = `${date.toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`;
  return der(0x18, Buffer.from(text, "ascii"));
}

function name(commonName: string): Buffer {
  return sequence(der(0x31, sequence(der(0x06, COMMON_NAME), der(0x0c, Buffer.from(commonName.slice(0, 64), "utf8")))));
}

/**
 * A certificate serial from random bytes as a DER INTEGER's content: positive (top bit clear) and
 * minimal (first byte never 0), since OpenSSL refuses a padded INTEGER and so the whole certificate
 * (a leading 0x00 before a byte under 0x80 happened once in 256 keys).
 */
export function serialNumber(random: Buffer): Buffer {
  const serial = Buffer.from(random);
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  return serial;
}

export interface KeyPair {
  privateKeyPem: string;
  certificatePem: string;
}

export function selfSignedKeyPair(commonName: string, years = 10): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const serial = serialNumber(randomBytes(16));
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + years * 365 * 24 * 3600 * 1000);
  const spki = publicKey.export({ type: "spki", format: "der" });
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([0x02]))), // version 3
    der(0x02, serial),
    SHA256_WITH_RSA,
    name(commonName),
    sequence(time(notBefore), time(notAfter)),
    name(commonName),
    spki,
  );
  const signature = sign("sha256", tbs, privateKey);
  const certificate = sequence(tbs, SHA256_WITH_RSA, der(0x03, Buffer.from([0x00]), signature));
  const body = certificate
    .toString("base64")
    .replace(/(.{64})/g, "$1\n")
    .trim();
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    certificatePem: `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`,
  };
}
