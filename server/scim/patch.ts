/**
 * PATCH as Okta and Entra ID send it, applied by the library's PatchOp (RFC 7644 §3.5.2) to the
 * resource as we would return it. Before that, what Entra writes differently from the RFC is made
 * standard: booleans sent as strings (`"value": "False"`, also inside a path-less value) become
 * booleans where the schema says the attribute is one. Capitalised ops (`"Replace"`), path-less
 * replace with dotted keys (`name.givenName`), value filters (`emails[type eq "work"].value`) and
 * member removal by filter (`members[value eq "…"]`) the library handles itself.
 */
import { scimError } from "./errors";
import { SCIMMY } from "./library";

type SchemaClass = typeof SCIMMY.Schemas.User | typeof SCIMMY.Schemas.Group;

const STRING_BOOLEAN = /^(true|false)$/i;

function isBooleanAttribute(schema: SchemaClass, path: string): boolean {
  try {
    const attribute = schema.definition.attribute(path.replace(/\[[^\]]*\]/g, ""));
    return attribute instanceof SCIMMY.Types.Attribute && attribute.type === "boolean";
  } catch {
    return false;
  }
}

function normaliseValue(schema: SchemaClass, path: string | undefined, value: unknown): unknown {
  if (path !== undefined)
    return typeof value === "string" && STRING_BOOLEAN.test(value) && isBooleanAttribute(schema, path) ? value.toLowerCase() === "true" : value;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, normaliseValue(schema, key, inner)]));
  }
  return value;
}

/** Entra's string booleans as booleans, in a PatchOp body or a resource body (POST, PUT). */
export function normaliseStringBooleans(schema: SchemaClass, body: unknown): unknown {
  return normaliseValue(schema, undefined, body);
}

function normaliseMessage(schema: SchemaClass, body: unknown): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw scimError(400, "invalidSyntax", "A PATCH body is a PatchOp message object");
  const { Operations: operations } = body as { Operations?: unknown };
  if (!Array.isArray(operations)) return body;
  return {
    ...body,
    Operations: operations.map((operation) => {
      if (!operation || typeof operation !== "object" || Array.isArray(operation)) return operation;
      const { path, value } = operation as { path?: unknown; value?: unknown };
      return { ...operation, value: normaliseValue(schema, typeof path === "string" ? path : undefined, value) };
    }),
  };
}

/**
 * The resource after the patch, or undefined when the operations changed nothing. Malformed
 * messages, unknown paths and values of the wrong type are SCIM 400s from the library.
 */
export async function applyPatch<S extends SCIMMY.Types.Schema>(schema: SchemaClass, current: S, body: unknown): Promise<S | undefined> {
  const message = new SCIMMY.Messages.PatchOp(normaliseMessage(schema, body) as ConstructorParameters<typeof SCIMMY.Messages.PatchOp>[0]);
  try {
    return (await message.apply(current)) as S | undefined;
  } catch (error) {
    if (error instanceof TypeError) throw scimError(400, "invalidValue", error.message);
    throw error;
  }
}
