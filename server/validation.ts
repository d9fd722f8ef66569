/** Parsing request input at the edge: a zod failure becomes a 400 naming each bad field. */
import type { ZodError } from "zod";
import { nulPath } from "../lib/nul-text";
import { Refusal } from "../lib/refusal";
import { fromZod } from "./errors";

type SafeParser<T> = { safeParse(input: unknown): { success: true; data: T } | { success: false; error: ZodError } };

export function parseInput<T>(schema: SafeParser<T>, input: unknown, where: "body" | "query" | "params"): T {
  const nul = nulPath(input);
  if (nul !== undefined) {
    const path = [where, nul].filter(Boolean).join(".");
    throw new Refusal("invalid", "VALIDATION_ERROR", `Invalid request: ${path}: must not contain NUL characters (\\u0000)`, {
      fields: [{ path, message: "must not contain NUL characters" }],
    });
  }
  const result = schema.safeParse(input);
  if (!result.success) throw fromZod(result.error, where);
  return result.data;
}
