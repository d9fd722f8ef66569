/** Entry of the admin console at `/admin`. */
import { render } from "preact";
import { Shell } from "../components/Shell";
import { LanguageProvider } from "../lib/i18n/language-choice";
import { AdminApp } from "./AdminApp";
import "../styles.css";

render(
  <LanguageProvider>
    <Shell title="shell.title.admin" role="admin">
      {(signedIn) => <AdminApp {...signedIn} />}
    </Shell>
  </LanguageProvider>,
  document.getElementById("root")!,
);
