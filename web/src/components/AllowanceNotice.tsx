/**
 * The organisation's AI allowance as each reader needs it: employees learn that the tutor is
 * paused and until when; admins see what is left this month and when it resets.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api";
import { formatDay, formatNumber, useT } from "../lib/i18n";

export interface Allowance {
  status: "available" | "exhausted";
  unlimited: boolean;
  resets_at: string;
  monthly_tokens?: number;
  used_tokens?: number;
  credit_balance?: number;
  remaining_tokens?: number | null;
}

const day = (iso: string): string => formatDay(iso, { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
export const tokens = (n: number): string => formatNumber(n);

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
  const { t } = useT();
  if (!allowance) return null;
  if (allowance.status === "exhausted") {
    return (
      <p class="alert allowance-paused" role="status" data-allowance="exhausted">
        {t(admin ? "allowance.exhausted.admin" : "allowance.exhausted.employee", { date: day(allowance.resets_at) })}
      </p>
    );
  }
  if (!admin || allowance.unlimited || allowance.remaining_tokens == null) return null;
  return (
    <p class="notice allowance-left" data-allowance="available">
      {t("allowance.left", {
        tokens: allowance.remaining_tokens,
        credits: allowance.credit_balance ? tokens(allowance.credit_balance) : "none",
        date: day(allowance.resets_at),
      })}
    </p>
  );
}
