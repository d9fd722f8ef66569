/**
 * Whose material a grounded answer stands on: the company's (documents, lessons, progress), a
 * file the employee attached to the conversation, or both. What the answer cites decides it; an
 * answer that cites nothing (or not yet, while it streams) is judged by what it was given.
 */
import type { GroundingSource } from "../../../queues/events/contract";

export type GroundingOrigin = "company" | "file" | "mixed";

type Sourced = Pick<GroundingSource, "sourceType">;

export function groundingOrigin(citations: readonly Sourced[], given: readonly Sourced[]): GroundingOrigin {
  const basis = citations.length > 0 ? citations : given;
  const file = basis.some((source) => source.sourceType === "attachment");
  const company = basis.some((source) => source.sourceType !== "attachment");
  if (file && company) return "mixed";
  return file ? "file" : "company";
}
