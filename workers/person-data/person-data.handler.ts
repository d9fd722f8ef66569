/** `person-data`: a person's export (`export` jobs) or one run of their erasure (`erase` jobs); see ./export.ts and ./erase.ts. */
import { defineHandler } from "../registry";
import { failedErasure, runErasure } from "./erase";
import { failedExport, runExport } from "./export";

export const personDataHandler = defineHandler({
  queue: "person-data",
  perform(context) {
    const { data } = context;
    return data.kind === "export" ? runExport(context, data.orgId, data.exportId) : runErasure(context, data.orgId, data.erasureId);
  },
  async onFailed(context, error, { final }) {
    if (!final) return;
    const { data } = context;
    if (data.kind === "export") await failedExport(context, data.orgId, data.exportId, error);
    else await failedErasure(context, data.orgId, data.erasureId, error);
  },
});
