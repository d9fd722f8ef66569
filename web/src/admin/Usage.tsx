/**
 * AI usage and estimated cost for one month: the allowance and what is left, a daily chart
 * (uPlot, bundled by esbuild), and the month by use case, model and top users, with a CSV export.
 */
import { ConsolePage } from "../components/ConsolePage";
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { api, fetchWithToken } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { formatDay, formatUsd, type MessageId, Msg, t, useT } from "../lib/i18n";
import { tokens } from "../components/AllowanceNotice";
import type { UsageBody } from "../../../server/routes/insights/schema";
import "../insights.css";

const usd = formatUsd;
const thisMonth = (): string => new Date().toISOString().slice(0, 7);

function DailyChart({ days }: { days: UsageBody["by_day"] }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!holder.current) return;
    const x = days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        width: Math.max(320, Math.min(900, holder.current.clientWidth - 16)),
        height: 220,
        scales: { x: { time: true } },
        series: [{}, { label: t("usage.tokens"), stroke: "#2f5bd3", fill: "rgba(47, 91, 211, 0.25)", paths: uPlot.paths.bars?.({ size: [0.7, 40] }) }],
        axes: [{}, { values: (_u, splits) => splits.map((v) => tokens(v)) }],
        legend: { show: true },
      },
      [x, days.map((d) => d.tokens)],
      holder.current,
    );
    return () => plot.destroy();
  }, [days]);
  return <div class="chart" ref={holder} role="img" aria-label={t("usage.perDay")} />;
}

function Table<T extends UsageBody["totals"]>({
  caption,
  column,
  rows,
  label,
}: {
  caption: MessageId;
  column: MessageId;
  rows: T[];
  label: (row: T) => string;
}) {
  useT();
  return (
    <table>
      <caption>{t(caption)}</caption>
      <thead>
        <tr>
          <th>{t(column)}</th>
          <th class="num">{t("usage.calls")}</th>
          <th class="num">{t("usage.tokens")}</th>
          <th class="num">{t("usage.cost")}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={label(row)}>
            <td>{label(row)}</td>
            <td class="num">{tokens(row.calls)}</td>
            <td class="num">{tokens(row.tokens)}</td>
            <td class="num">{usd(row.cost_usd)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The CSV needs the bearer token, so it is fetched and saved through a blob link. */
async function downloadCsv(month: string): Promise<void> {
  const response = await fetchWithToken(`/api/v1/admin/usage/csv?month=${month}`);
  if (!response.ok) throw new Error(t("usage.exportFailed", { status: response.status }));
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = `ai-usage-${month}.csv`;
  link.click();
}

export function Usage() {
  useT();
  const [month, setMonth] = useState(thisMonth());
  const [report, setReport] = useState<UsageBody | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setError(null);
    api
      .get<UsageBody>(`/api/v1/admin/usage?month=${month}`)
      .then(setReport)
      .catch((caught) => setError(describeApiError(caught)));
  }, [month]);

  const allowance = report?.allowance;
  return (
    <ConsolePage label={t("usage.title")} name="insights usage">
      <h1>{t("usage.title")}</h1>
      <p>
        <label>
          {t("usage.month")}{" "}
          <input type="month" value={month} max={thisMonth()} onChange={(e) => setMonth((e.target as HTMLInputElement).value || thisMonth())} />
        </label>{" "}
        <button type="button" onClick={() => void downloadCsv(month).catch((caught) => setError(String((caught as Error).message)))}>
          {t("usage.exportCsv")}
        </button>
      </p>
      {error && <p class="alert">{error}</p>}
      {report && allowance && (
        <>
          <p class="usage-summary">
            <Msg
              id="usage.summary"
              values={{
                tokens: report.totals.tokens,
                calls: report.totals.calls,
                cost: usd(report.totals.cost_usd),
                strong: (chunks) => <strong>{chunks}</strong>,
              }}
            />{" "}
            {allowance.unlimited
              ? t("usage.unlimited")
              : t("usage.allowance", {
                  monthly: tokens(allowance.monthly_tokens),
                  used: tokens(allowance.used_tokens),
                  left: tokens(allowance.remaining_tokens ?? 0),
                  credits: tokens(allowance.credit_balance),
                  date: formatDay(allowance.resets_at, { year: "numeric", month: "numeric", day: "numeric", timeZone: "UTC" }),
                })}
          </p>
          <DailyChart days={report.by_day} />
          <Table caption="usage.byUseCase" column="usage.useCase" rows={report.by_use_case} label={(r) => r.use_case} />
          <Table caption="usage.byModel" column="usage.model" rows={report.by_model} label={(r) => r.model} />
          <Table caption="usage.topUsers" column="usage.person" rows={report.top_users} label={(r) => r.name ?? r.email ?? r.user_id} />
        </>
      )}
    </ConsolePage>
  );
}
