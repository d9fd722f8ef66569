/**
 * Argument values the offline model can read straight from an admin's request, by property name:
 * a skill after "knows", a department after "in", a course title between "assign" and "to", a
 * deadline from "next Friday" or "in 5 days". Deterministic pattern reading — enough to drive the
 * admin assistant's demo without a real model, and never a substitute for one.
 */
import { foldAccents } from "../lib/language";
import type { JsonSchema } from "./responder";

const WEEKDAYS: Record<string, number> = {
  sunday: 0,
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6,
  domingo: 0,
  lunes: 1,
  martes: 2,
  miercoles: 3,
  jueves: 4,
  viernes: 5,
  sabado: 6,
};

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** A date the message names, relative to `today`: ISO, weekday ("next Friday", "el viernes"), tomorrow, "in N days/weeks". */
export function deadlineIn(message: string, today = new Date()): string | undefined {
  const iso = /\b(\d{4}-\d{2}-\d{2})\b/.exec(message)?.[1];
  if (iso) return iso;
  const text = foldAccents(message);
  const base = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  const plus = (days: number) => isoDay(new Date(base.getTime() + days * 86_400_000));
  if (/\b(tomorrow|manana)\b/.test(text)) return plus(1);
  const inDays = /\b(?:in|en|dentro de)\s+(\d{1,3})\s+(days?|dias?|weeks?|semanas?)\b/.exec(text);
  if (inDays) return plus(Number(inDays[1]) * (/^(week|semana)/.test(inDays[2]!) ? 7 : 1));
  for (const [name, day] of Object.entries(WEEKDAYS)) {
    if (new RegExp(`\\b${name}\\b`).test(text)) return plus((day - base.getUTCDay() + 7) % 7 || 7);
  }
  return undefined;
}

const CAPITALISED = String.raw`\p{Lu}[\p{L}&'’-]*(?:\s+(?:de\s+|del\s+|of\s+)?\p{Lu}[\p{L}&'’-]*)*`;

function departmentIn(message: string): string | undefined {
  const match = new RegExp(
    String.raw`(?:department|departamento|team|equipo|in|en|de|from)\s+(?:the\s+|el\s+|la\s+)?(?:department\s+|departamento\s+(?:de\s+)?)?(${CAPITALISED})`,
    "u",
  ).exec(message);
  return match?.[1];
}

function skillIn(message: string): string | undefined {
  const match =
    /(?:knows?(?:\s+about)?|sabe(?:n)?(?:\s+de)?|experts?\s+(?:in|on|en)|skill(?:ed)?\s+(?:in|at)?|habilidad(?:es)?\s+(?:de|en)?)\s+(.+?)\s*(?:\?|\.|!|$|\s+(?:at|with|level|nivel|in the|en el)\b)/iu.exec(
      message,
    );
  return match?.[1]?.replace(/^(the|el|la)\s+/i, "").trim() || undefined;
}

function courseIn(message: string): string | undefined {
  const quoted = /"([^"]+)"|“([^”]+)”|«([^»]+)»/.exec(message);
  if (quoted) return quoted[1] ?? quoted[2] ?? quoted[3];
  const assign = new RegExp(
    String.raw`(?:assign|enrol+|asigna(?:r)?|inscribe|archive|archiva(?:r)?|stats?\s+(?:of|for)|course|curso)\s+(?:the\s+|el\s+|la\s+)?(?:course\s+|curso\s+)?(${CAPITALISED})`,
    "u",
  ).exec(message);
  return assign?.[1];
}

function personIn(message: string): string | undefined {
  const match = new RegExp(
    String.raw`(?:deactivate|desactiva(?:r)?(?:\s+a)?|about|sobre|detail(?:s)?\s+(?:of|for)|verify|verifica(?:r)?(?:\s+a)?|for|para)\s+(${CAPITALISED})`,
    "u",
  ).exec(message);
  return match?.[1];
}

function levelIn(message: string): number | undefined {
  const match = /\b(?:level|nivel)\s+([1-5])\b/i.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** Values for the schema's properties that the message states plainly; absent ones are left out. */
export function namedArguments(schema: JsonSchema | undefined, message: string, today = new Date()): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const properties = schema?.properties ?? {};
  const everyone = /\b(everyone|everybody|all|todos|todas)\b/i.test(message);
  for (const name of Object.keys(properties)) {
    let value: unknown;
    if (name === "department" && (everyone || /\b(list|lista|show|muestra)\b/i.test(message))) value = departmentIn(message);
    else if (name === "skill" || name === "skill_name") value = skillIn(message);
    else if (name === "course_title") value = courseIn(message);
    else if (name === "employee_name") value = personIn(message);
    else if (name === "deadline") value = deadlineIn(message, today);
    else if (name === "level" || name === "min_level") value = levelIn(message);
    if (value !== undefined) args[name] = value;
  }
  return args;
}
