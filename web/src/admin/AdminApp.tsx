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
        <a href="#documents" aria-current={tab === "documents" ? "page" : undefined}>
          Documents
        </a>
        <a href="#assistant" aria-current={tab === "assistant" ? "page" : undefined}>
          Assistant
        </a>
        <a href="#gaps" aria-current={tab === "gaps" ? "page" : undefined}>
          Content gaps
        </a>
        <a href="#usage" aria-current={tab === "usage" ? "page" : undefined}>
          Usage
        </a>
        <a href="#people" aria-current={tab === "people" ? "page" : undefined}>
          People
        </a>
        <a href="#sign-in" aria-current={tab === "sign-in" ? "page" : undefined}>
          Sign-in
        </a>
        <a href="#provisioning" aria-current={tab === "provisioning" ? "page" : undefined}>
          Provisioning
        </a>
        <a href="#integration-keys" aria-current={tab === "integration-keys" ? "page" : undefined}>
          Integration keys
        </a>
        <a href="#imports" aria-current={tab === "imports" ? "page" : undefined}>
          Imports
        </a>
        <a href="#retention" aria-current={tab === "retention" ? "page" : undefined}>
          Retention
        </a>
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
