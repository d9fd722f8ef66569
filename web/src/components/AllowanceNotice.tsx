/**
 * The organisation's AI allowance as each reader needs it: employees learn that the tutor is
 * paused and until when; admins see what is left this month and when it resets.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api";

export interface Allowance {
  status: "available" | "exhausted";
  unlimited: boolean;
  resets_at: string;
  monthly_tokens?: number;
  used_tokens?: number;
  credit_balance?: number;
  remaining_tokens?: number | null;
}

const day = (iso: string): string => new Date(iso).toLocaleDateString(undefined, { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
export const tokens = (n: number): string => n.toLocaleString();

/** Re-reads the allowance whenever `refreshKey` changes (after a refused send, say). */
export function useAllowance(refreshKey?: unknown): Allowance | null {
  const [allowance, setAllowance] = useState<Allowance | null>(null);
  useEffect(() => {
    api
      .get<Allowance>("/api/v1/ai-allowance")
      .then(setAllowance)
      .catch(() => setAllowance(null));
  }, [refreshKey]);
  return allowance;
}

export function AllowanceNotice({ allowance, admin }: { allowance: Allowance | null; admin: boolean }) {
  if (!allowance) return null;
  if (allowance.status === "exhausted") {
    return (
      <p class="alert allowance-paused" role="status" data-allowance="exhausted">
        {admin
          ? `Your organisation's AI allowance for this month is used up: the tutor and the assistant are paused until ${day(allowance.resets_at)}, or until an operator adds credits.`
          : `The tutor is paused until ${day(allowance.resets_at)}: your organisation has used this month's AI allowance. Ask your administrator if you need it sooner.`}
      </p>
    );
  }
  if (!admin || allowance.unlimited || allowance.remaining_tokens == null) return null;
  return (
    <p class="notice allowance-left" data-allowance="available">
      AI allowance: {tokens(allowance.remaining_tokens)} tokens left this month
      {allowance.credit_balance ? ` (credits included: ${tokens(allowance.credit_balance)})` : ""}; resets on {day(allowance.resets_at)}.
    </p>
  );
}
