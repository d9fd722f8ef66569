/** Parsing request input at the edge: a zod failure becomes a 400 naming each bad field. */
import type { ZodError } from "zod";
import { fromZod } from "./errors";

type SafeParser<T> = { safeParse(input: unknown): { success: true; data: T } | { success: false; error: ZodError } };

export function parseInput<T>(schema: SafeParser<T>, input: unknown, where: "body" | "query" | "params"): T {
  const result = schema.safeParse(input);
  if (!result.success) throw fromZod(result.error, where);
  return result.data;
}
