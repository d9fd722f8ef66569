/**
 * A write the model asked for, resolved into the exact rows it will touch. Targets are frozen as
 * items at proposal time: confirmation runs precisely what the admin was shown, never a fresh
 * re-resolution of a name or a department that may have changed meanwhile.
 */
import type { WriteTarget, WriteTool } from "../../../commands/write-targets";
import type { NewActionItem } from "../../../db/queries/admin-actions";

/** An item of a `T` proposal: its target is what `T`'s applier reads (commands/write-targets.ts). */
export interface FrozenItem<T extends WriteTool> extends NewActionItem {
  target: WriteTarget<T>;
}

interface Proposal<T extends WriteTool> {
  tool: T;
  /** The validated arguments as the model sent them, kept for the audit trail. */
  args: Record<string, unknown>;
  /** One line the admin reads: what will happen, to how many. */
  preview: string;
  items: FrozenItem<T>[];
}

/** One of the write tools' proposals: a tool name and items of that tool's target shape, checked together. */
export type ProposedAction = { [T in WriteTool]: Proposal<T> }[WriteTool];

/** Rough cost of running the items: database writes and wall-clock seconds (≈ 25 ms per write). */
export function estimateWork(items: NewActionItem[]): { items: number; writes: number; seconds: number } {
  // Each item writes its change, its audit row and its own status.
  const writes = items.length * 3;
  return { items: items.length, writes, seconds: Math.max(1, Math.ceil((writes * 25) / 1000)) };
}

/**
 * A name as it may appear in the code-written proposal line (preview and item labels): always a
 * value of a database row the proposal resolved to, never text the model chose, and even so put
 * on one line and bounded, so a stored name cannot stretch or break the line that asks for a yes.
 */
export function shownName(text: string, max = 80): string {
  const oneLine = text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s]+/gu, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** The first few names of a list, then how many more: a proposal line stays short however many were skipped. */
export function fewNames(names: string[], shown = 5): string {
  const first = names.slice(0, shown).map((name) => shownName(name));
  return names.length > shown ? `${first.join(", ")} and ${names.length - shown} more` : first.join(", ");
}
