/**
 * The console's Retention panel in real Chromium against the real stack: it shows "keep forever"
 * and no sweep at first; an out-of-range number is refused with the server's reason and changes
 * nothing; 30 days is saved and still there after a reload; after the sweep ran, the panel says
 * when and how many chats it deleted.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { sweepChatRetention } from "../../workers/maintenance/chat-retention";
import { dropOrganisations } from "../support/organizations";
import { useStack, type Stack } from "../support/stack";
import { freshOrganisation } from "../server/routes/allowance/helpers";
import { cleanUp, freshUser, type Person } from "../workers/admin/helpers";
import { launchBrowser, openPage, signInWithToken, type WatchedPage } from "./browser";

describe("web: the Retention panel in Chromium", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let orgId: string;
  let admin: Person;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    orgId = await freshOrganisation(stack, "Retention page");
    admin = await freshUser(stack, { role: "admin", orgId });
    watched = await openPage(browser);
  });
  after(async () => {
    await watched?.context.close();
    await browser?.close();
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgId]);
  });

  it("sets the days, refuses a bad number with the server's reason, and shows what the last sweep deleted", async () => {
    const { page } = watched;
    await signInWithToken(page, stack.baseUrl, admin.token, "/admin#retention");
    const main = page.getByRole("main", { name: "Chat retention" });
    await main.getByText("No sweep has run for this organisation yet.").waitFor();
    expect(await main.getByRole("radio", { name: "Keep chats forever" }).isChecked()).to.equal(true);
    const days = main.getByRole("textbox", { name: "Days" });
    expect(await days.isDisabled(), "no days while chats are kept forever").to.equal(true);

    await main.getByRole("radio", { name: /Delete chats idle for more than/ }).check();
    await days.fill("99999");
    await main.getByRole("button", { name: "Save" }).click();
    await main
      .getByRole("alert")
      .getByText(/chat_retention_days must be a whole number of days from 1 to 3650/)
      .waitFor();
    expect((await stack.server.deps.db("org_retention").where({ org_id: orgId }).first()) ?? null, "nothing stored").to.equal(null);

    await days.fill("30");
    await main.getByRole("button", { name: "Save" }).click();
    await main.getByRole("status").getByText("Saved: chats idle for more than 30 days will be deleted.").waitFor();
    const audit = await stack.server.deps.db("audit_log").where({ org_id: orgId, action: "retention.updated" }).select("actor_id", "after");
    expect(audit).to.deep.equal([{ actor_id: admin.id, after: { chat_retention_days: 30 } }]);

    // A chat idle for 40 days, then the sweep.
    const at = new Date(Date.now() - 40 * 86_400_000);
    const [session] = await stack.server.deps
      .db("chat_sessions")
      .insert({ org_id: orgId, user_id: admin.id, agent_type: "tutor", title: "Old", created_at: at, updated_at: at })
      .returning("id");
    const turnId = randomUUID();
    await stack.server.deps.db("chat_messages").insert([
      { org_id: orgId, session_id: session.id, turn_id: turnId, role: "user", content: "q", created_at: at },
      { org_id: orgId, session_id: session.id, turn_id: turnId, role: "assistant", content: "a", created_at: at },
    ]);
    await sweepChatRetention(stack.workers.deps);

    await page.reload();
    await main.getByText(/^Last sweep .*: deleted 1 chat \(2 messages\)\.$/).waitFor();
    expect(await main.getByRole("radio", { name: /Delete chats idle for more than/ }).isChecked()).to.equal(true);
    expect(await main.getByRole("textbox", { name: "Days" }).inputValue()).to.equal("30");
    // The refused save logged its 400 in the console; nothing else may have.
    expect(
      watched.consoleErrors.filter((text) => !text.includes("400")),
      "no page errors",
    ).to.deep.equal([]);
  });
});
