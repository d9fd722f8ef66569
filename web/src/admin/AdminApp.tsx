/** The admin console: documents, the assistant, insights, people, sign-in settings, provisioning, integration keys, catalog imports, chat retention, and (for the platform operator) Bull Board. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { AllowanceNotice, useAllowance } from "../components/AllowanceNotice";
import type { SignedIn } from "../components/Shell";
import { ConsolePage } from "../components/ConsolePage";
import { Assistant } from "./Assistant";
import { ContentGaps } from "./ContentGaps";
import { Usage } from "./Usage";
import { Documents } from "./Documents";
import { Imports } from "./Imports";
import { IntegrationKeys } from "./IntegrationKeys";
import { People } from "./People";
import { Provisioning } from "./Provisioning";
import { Retention } from "./Retention";
import { SignInSettings } from "./SignInSettings";

type Tab = "documents" | "assistant" | "gaps" | "usage" | "people" | "sign-in" | "provisioning" | "integration-keys" | "imports" | "retention";

const TABS: readonly Tab[] = ["documents", "assistant", "gaps", "usage", "people", "sign-in", "provisioning", "integration-keys", "imports", "retention"];
/** Each section's name in the navigation, in the order of TABS. */
const TAB_LABELS: Record<Tab, string> = {
  documents: "Documents",
  assistant: "Assistant",
  gaps: "Content gaps",
  usage: "Usage",
  people: "People",
  "sign-in": "Sign-in",
  provisioning: "Provisioning",
  "integration-keys": "Integration keys",
  imports: "Imports",
  retention: "Retention",
};
const tabFromHash = (): Tab => TABS.find((tab) => location.hash === `#${tab}`) ?? "documents";

export function AdminApp(signedIn: SignedIn) {
  const [tab, setTab] = useState<Tab>(tabFromHash());
  const [boardError, setBoardError] = useState<string | null>(null);
  const allowance = useAllowance(tab);

  useEffect(() => {
    const follow = (): void => setTab(tabFromHash());
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);

  // A single-use code swaps for Bull Board's own cookie; the token itself never goes in a URL.
  const openBoard = async (): Promise<void> => {
    setBoardError(null);
    try {
      const { url } = await api.post<{ url: string }>("/api/v1/ops/board-code");
      location.assign(url);
    } catch (error) {
      setBoardError(describeApiError(error));
    }
  };

  return (
    <>
      <nav class="tabs" aria-label="Console sections">
        {TABS.map((name) => (
          <a key={name} href={`#${name}`} aria-current={tab === name ? "page" : undefined}>
            {TAB_LABELS[name]}
          </a>
        ))}
        {signedIn.me.operator && (
          <button type="button" class="link-button board-link" onClick={() => void openBoard()}>
            Queues (Bull Board)
          </button>
        )}
        <a href="/">Tutor</a>
      </nav>
      <AllowanceNotice allowance={allowance} admin />
      {boardError && (
        <p class="alert" role="alert">
          {boardError}
        </p>
      )}
      {tab === "documents" && <Documents me={signedIn.me} live={signedIn.live} />}
      {tab === "assistant" && (
        <ConsolePage label="Assistant" name="assistant" width="full">
          <Assistant {...signedIn} />
        </ConsolePage>
      )}
      {tab === "usage" && <Usage />}
      {tab === "people" && <People me={signedIn.me} />}
      {tab === "sign-in" && <SignInSettings />}
      {tab === "provisioning" && <Provisioning />}
      {tab === "imports" && <Imports live={signedIn.live} />}
      {tab === "integration-keys" && <IntegrationKeys />}
      {tab === "retention" && <Retention />}
      {tab === "gaps" && <ContentGaps accept={signedIn.me.uploads?.accepted_extensions.join(",") ?? ""} />}
    </>
  );
}
