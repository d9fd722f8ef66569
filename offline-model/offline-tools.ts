/**
 * Tool use for the offline model: pick the tool whose name and description best match the
 * request, fill its required arguments from the message, and later summarise what the tool
 * returned. Crude but deterministic, which is what the admin assistant's confirm-before-write flow
 * needs to be testable without a real model.
 */
import type { ChatMessage, JsonSchema, ToolCallReply, ToolDefinition } from "./responder";
import { namedArguments } from "./offline-arguments";
import { detectLanguage } from "../lib/language-detection";
import { messageText, sharedStems, stem, words, STOP_WORDS } from "./text";

/** Spanish admin requests must reach English tool names. */
const SPANISH_TO_ENGLISH: Record<string, string> = {
  empleado: "employee",
  empleados: "employee",
  trabajador: "employee",
  trabajadores: "employee",
  usuario: "user",
  usuarios: "user",
  curso: "course",
  cursos: "course",
  modulo: "module",
  modulos: "module",
  lista: "list",
  listar: "list",
  listado: "list",
  muestra: "show",
  mostrar: "show",
  ver: "show",
  busca: "search",
  buscar: "search",
  encuentra: "find",
  crear: "create",
  crea: "create",
  nuevo: "create",
  anade: "add",
  agregar: "add",
  agrega: "add",
  asignar: "assign",
  asigna: "assign",
  inscribir: "enroll",
  inscribe: "enroll",
  matricular: "enroll",
  eliminar: "delete",
  elimina: "delete",
  borrar: "delete",
  borra: "delete",
  quitar: "remove",
  actualizar: "update",
  actualiza: "update",
  cambiar: "update",
  departamento: "department",
  equipo: "team",
  progreso: "progress",
  informe: "report",
  reporte: "report",
  cuestionario: "quiz",
  examen: "quiz",
  fecha: "date",
  plazo: "deadline",
};

function toolStems(text: string): Set<string> {
  return new Set(
    words(text.replace(/[_-]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2"))
      .filter((word) => !STOP_WORDS.has(word) && word.length > 1)
      .map((word) => stem(SPANISH_TO_ENGLISH[word] ?? word)),
  );
}

/** Name words count double: "list_employees" says more than a description that mentions employees. */
export function chooseTool(tools: ToolDefinition[], message: string): { tool: ToolDefinition; score: number } | undefined {
  const wanted = toolStems(message);
  let best: { tool: ToolDefinition; score: number } | undefined;
  for (const tool of tools) {
    const score = 2 * sharedStems(wanted, toolStems(tool.function.name)) + sharedStems(wanted, toolStems(tool.function.description ?? ""));
    if (score > 0 && (!best || score > best.score)) best = { tool, score };
  }
  return best;
}

/** Words that open a command, so a capitalised "List …" at the start is not taken for a name. */
const COMMAND_WORDS = new Set(
  "list show find search get give tell create add assign enroll delete remove update make please who what which how lista listar muestra mostrar busca buscar dame crea crear asigna asignar inscribe elimina borra actualiza quien cual cuales como".split(
    " ",
  ),
);

/** Quoted strings first, then capitalised names — the likeliest values for string arguments. */
export function stringCandidates(message: string): string[] {
  const quoted = [...message.matchAll(/"([^"]+)"|“([^”]+)”|'([^']{2,})'|«([^»]+)»/g)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4] ?? "").trim());
  const names: string[] = [];
  for (const match of message.matchAll(/(?<![\p{L}\p{N}])\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*)*/gu)) {
    const parts = match[0].split(/\s+/);
    while (parts.length > 0 && (COMMAND_WORDS.has(words(parts[0] ?? "")[0] ?? "") || STOP_WORDS.has(words(parts[0] ?? "")[0] ?? "") || parts[0] === "I"))
      parts.shift();
    if (parts.length > 0) names.push(parts.join(" "));
  }
  return [...quoted, ...names].filter((value, index, all) => value !== "" && all.indexOf(value) === index);
}

function primaryType(schema: JsonSchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((type) => type !== "null") : schema.type;
}

/** Arguments for every required property, drawn from the message where a plausible value exists. */
export function argumentsFromSchema(schema: JsonSchema | undefined, message: string, candidates = stringCandidates(message)): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of schema?.required ?? []) {
    const property = schema?.properties?.[name] ?? {};
    args[name] = valueFor(name, property, message, candidates);
  }
  return args;
}

function valueFor(name: string, property: JsonSchema, message: string, candidates: string[]): unknown {
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  switch (primaryType(property)) {
    case "integer":
    case "number":
      return Math.min(property.maximum ?? 10, Math.max(property.minimum ?? 10, 10));
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return argumentsFromSchema(property, message, candidates);
    default: {
      const key = name.toLowerCase();
      if (/query|search|^q$|text|question|prompt|message|keyword/.test(key)) return message.trim();
      if (key.includes("email")) {
        const email = /[\w.+-]+@[\w-]+(\.[\w-]+)+/.exec(message)?.[0];
        if (email) return email;
      }
      if (/(^|_)id$/.test(key)) {
        const id = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b\d+\b/i.exec(message)?.[0];
        if (id) return id;
      }
      return candidates.shift() ?? message.trim();
    }
  }
}

export function toolCallFor(tools: ToolDefinition[], message: string): ToolCallReply | undefined {
  const choice = chooseTool(tools, message);
  if (!choice) return undefined;
  const schema = choice.tool.function.parameters;
  const named = namedArguments(schema, message);
  const rest = argumentsFromSchema({ ...schema, required: (schema?.required ?? []).filter((name) => !(name in named)) }, message);
  return { name: choice.tool.function.name, arguments: { ...rest, ...named } };
}

const LABEL_KEYS = ["name", "full_name", "fullName", "title", "label", "email", "id"];
const DETAIL_KEYS = ["level", "department", "role", "status", "email", "progress", "score", "due_date", "deadline"];

function describeEntry(entry: unknown): string {
  if (entry === null || typeof entry !== "object") return String(entry);
  const record = entry as Record<string, unknown>;
  const labelKey = LABEL_KEYS.find((key) => typeof record[key] === "string" || typeof record[key] === "number");
  if (!labelKey) return JSON.stringify(entry).slice(0, 80);
  const detailKey = DETAIL_KEYS.find((key) => key !== labelKey && (typeof record[key] === "string" || typeof record[key] === "number"));
  return detailKey ? `${String(record[labelKey])} (${String(record[detailKey])})` : String(record[labelKey]);
}

/** Lists come bare or wrapped (`{employees: [...]}`); find the list either way. */
function entriesOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (value && typeof value === "object") {
    // The rows are the longest list of records (not e.g. `skills_matched: ["Returns handling"]`).
    const lists = Object.values(value as Record<string, unknown>).filter(Array.isArray) as unknown[][];
    const rows = lists.filter((list) => list.some((entry) => entry !== null && typeof entry === "object")).sort((a, b) => b.length - a.length)[0];
    if (rows ?? lists[0]) return rows ?? lists[0];
  }
  return undefined;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Proposals, clarifications and errors are said as such, not listed like rows. */
function describeOutcome(parsed: unknown, spanish: boolean): string | undefined {
  if (!parsed || typeof parsed !== "object") return undefined;
  const record = parsed as Record<string, unknown>;
  if (record.status === "pending_confirmation" && typeof record.preview === "string") {
    return spanish ? `He preparado este cambio: ${record.preview}` : `I have prepared this change: ${record.preview}`;
  }
  if (record.status === "needs_clarification" && Array.isArray(record.candidates)) {
    const names = record.candidates.map(describeEntry).join("; ");
    return spanish ? `Hay varias coincidencias (${names}): ¿a cuál te refieres?` : `Several match (${names}): which one do you mean?`;
  }
  if (typeof record.error === "string") return spanish ? `No he podido hacerlo: ${record.error}` : `I could not do that: ${record.error}`;
  return undefined;
}

/** Plain-text summary of the tool results that follow the last assistant turn, in the user's language. */
export function summariseToolResults(messages: ChatMessage[]): string {
  const lastUser = [...messages].reverse().find((message) => message.role === "user");
  const spanish = detectLanguage(messageText(lastUser)) === "es";
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i -= 1) results.unshift(messageText(messages[i]));
  const parts = results.map((text) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return text.trim().slice(0, 200);
    }
    const special = describeOutcome(parsed, spanish);
    if (special) return special;
    const entries = entriesOf(parsed);
    if (!entries) {
      const record = (parsed && typeof parsed === "object" ? parsed : { result: parsed }) as Record<string, unknown>;
      return Object.entries(record)
        .slice(0, 4)
        .map(([key, value]) => `${key}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}`)
        .join(", ");
    }
    if (entries.length === 0) return spanish ? "no hay resultados" : "no results";
    const shown = entries.slice(0, 5).map(describeEntry).join("; ");
    const more = entries.length - 5;
    return more > 0 ? `${shown}; ${spanish ? `y ${more} más` : `and ${more} more`}` : shown;
  });
  const body = parts.filter((part) => part !== "").join(" | ") || (spanish ? "no hay resultados" : "no results");
  // A single proposal, question or error reads as a sentence of its own, not as a finding.
  const single = results.length === 1 ? describeOutcome(safeParse(results[0]!), spanish) : undefined;
  if (single) return /[.?!]$/.test(single) ? single : `${single}.`;
  return `${spanish ? "Esto es lo que encontré:" : "Here is what I found:"} ${body.replace(/[.]$/, "")}.`;
}
