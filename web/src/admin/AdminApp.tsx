/** The admin console: documents, the assistant, insights, people, sign-in settings, provisioning, integration keys, catalog imports, chat retention, and (for the platform operator) Bull Board. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { type MessageId, useT } from "../lib/i18n";
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
/** Each section's name in the navigation. */
const TAB_LABELS = {
  documents: "nav.documents",
  assistant: "nav.assistant",
  gaps: "nav.gaps",
  usage: "nav.usage",
  people: "nav.people",
  "sign-in": "nav.signIn",
  provisioning: "nav.provisioning",
  "integration-keys": "nav.integrationKeys",
  imports: "nav.imports",
  retention: "nav.retention",
} as const satisfies Record<Tab, MessageId>;
/**
 * The navigation in groups, so ten sections (and Bull Board, and the way back to the tutor) read
 * as four short runs of related pages rather than one long line; Operations ends with Bull Board.
 */
const GROUPS: ReadonlyArray<{ name: MessageId; tabs: readonly Tab[] }> = [
  { name: "nav.group.learning", tabs: ["assistant", "gaps"] },
  { name: "nav.group.content", tabs: ["documents", "imports"] },
  { name: "nav.group.operations", tabs: ["usage", "retention"] },
  { name: "nav.group.people", tabs: ["people", "sign-in", "provisioning", "integration-keys"] },
];
const tabFromHash = (): Tab => TABS.find((tab) => location.hash === `#${tab}`) ?? "documents";

export function AdminApp(signedIn: SignedIn) {
  const { t } = useT();
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
      <nav class="tabs" aria-label={t("nav.label")}>
        {GROUPS.map((group) => (
          <div key={group.name} class="tab-group" role="group" aria-labelledby={`tab-group-${group.name}`}>
            <span class="tab-group-name" id={`tab-group-${group.name}`}>
              {t(group.name)}
            </span>
            {group.tabs.map((name) => (
              <a key={name} href={`#${name}`} aria-current={tab === name ? "page" : undefined}>
                {t(TAB_LABELS[name])}
              </a>
            ))}
            {group.name === "nav.group.operations" && signedIn.me.operator && (
              <button type="button" class="link-button board-link" onClick={() => void openBoard()}>
                {t("nav.board")}
              </button>
            )}
          </div>
        ))}
        <a class="tab-tutor" href="/">
          {t("nav.tutor")}
        </a>
      </nav>
      <AllowanceNotice allowance={allowance} admin />
      {boardError && (
        <p class="alert" role="alert">
          {boardError}
        </p>
      )}
      {tab === "documents" && <Documents me={signedIn.me} live={signedIn.live} />}
      {tab === "assistant" && (
        <ConsolePage label={t("nav.assistant")} name="assistant" width="full">
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
