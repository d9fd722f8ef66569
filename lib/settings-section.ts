/**
 * How a module declares its settings, beside itself (`<module>/settings.ts`), for lib/config.ts to
 * compose. A section has two parts with two homes:
 *
 * - `environment`: facts about a deployment (URLs, secrets, ports, pools, process roles), read from
 *   the environment. Each carries `why`: the reason an operator would change it, printed in
 *   docs/configuration.md and required by the type (a variable without a reason does not compile).
 * - `tunables`: values measured or chosen for the product (weights, thresholds, batch sizes,
 *   timeouts) with their default as the constant. They are never read from the environment; tests
 *   shorten them through `parseConfig(env, { overrides })` or, for processes they spawn,
 *   `SKILLNET_TEST_TUNABLES` (lib/test-tunables.ts).
 *
 * Per-organisation policy is neither: it lives in Postgres (db/queries/organisation-policy.ts), and
 * the tunables of the same name are only its defaults.
 */
import { z } from "zod";

export interface Section<E extends z.ZodRawShape, T extends z.ZodRawShape, D extends object> {
  environment: z.ZodObject<E>;
  why: { readonly [K in keyof E]: string };
  tunables: z.ZodObject<T>;
  /** Values computed from the parsed ones (e.g. whether embeddings get E5 prefixes). */
  derive: (values: z.output<z.ZodObject<E>> & z.output<z.ZodObject<T>>) => D;
}

// biome-ignore lint/complexity/noBannedTypes: an empty shape is what a section without one of its parts has.
type NoShape = {};

export function defineSection<E extends z.ZodRawShape = NoShape, T extends z.ZodRawShape = NoShape, D extends object = NoShape>(parts: {
  environment?: E;
  why?: { readonly [K in keyof E]: string };
  tunables?: T;
  derive?: (values: z.output<z.ZodObject<E>> & z.output<z.ZodObject<T>>) => D;
}): Section<E, T, D> {
  return {
    environment: z.object(parts.environment ?? ({} as E)),
    why: parts.why ?? ({} as { readonly [K in keyof E]: string }),
    tunables: z.object(parts.tunables ?? ({} as T)),
    derive: parts.derive ?? (() => ({}) as D),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: any section, whatever its shapes.
export type AnySection = Section<any, any, any>;

/** What a section's consumers read: its environment values, its tunables and what it derives. */
export type SettingsOf<S extends AnySection> = OutputOf<S["environment"]> & OutputOf<S["tunables"]> & ReturnType<S["derive"]>;

/** An empty part adds nothing (zod types an empty object's output as an index signature of `never`). */
type OutputOf<O extends z.ZodObject> = [keyof O["shape"]] extends [never] ? NoShape : z.output<O>;

export const optionalString = z
  .string()
  .transform((value) => value.trim())
  .optional()
  .transform((value) => (value === "" ? undefined : value));

export const booleanFlag = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((value) => value === "true" || value === "1" || value === "yes");

export const port = z.coerce.number().int().min(0).max(65535);

/**
 * A JSON array in one variable (fallback providers): unset is no list. The parse error's own
 * text is left out of the message because it quotes the input, and the input holds API keys.
 */
export const jsonList = <T extends z.ZodType>(item: T) =>
  optionalString
    .transform((value, ctx): unknown => {
      if (value === undefined) return undefined;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: 'is not valid JSON; write an array like [{"base_url":"https://…/v1","model":"…"}]' });
        return z.NEVER;
      }
    })
    .pipe(z.array(item).max(8).optional());
