/**
 * What both pages need to hand a person's data over (docs/personal-data.md): follow a queued
 * export or erasure until its job ends, and save a zip that needs the bearer token.
 */
import { fetchWithToken } from "./api";
import { t } from "./i18n";

const POLL_MS = 1_000;

export interface ExportStatus {
  id: string;
  status: "queued" | "running" | "completed" | "failed" | "expired";
  download_url: string | null;
  error: string | null;
}

/** Reads the record every second, showing each answer, until it is no longer queued or running; null once `alive()` says the page left. */
export async function followJob<T extends { status: string }>(read: () => Promise<T>, show: (value: T) => void, alive: () => boolean): Promise<T | null> {
  for (;;) {
    const value = await read();
    if (!alive()) return null;
    show(value);
    if (value.status !== "queued" && value.status !== "running") return value;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Fetches the archive with the tab's token and saves it through a blob link as `filename`. */
export async function saveArchive(url: string, filename: string): Promise<void> {
  const response = await fetchWithToken(url);
  if (!response.ok) throw new Error(t("error.downloadFailed", { status: response.status }));
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = filename;
  link.click();
}
