/** Entry of the admin console at `/admin`. */
import { Shell } from "../components/Shell";
import { renderInReadersLanguage } from "../lib/i18n/language-choice";
import { AdminApp } from "./AdminApp";
import "../styles.css";

void renderInReadersLanguage(
  <Shell title="shell.title.admin" role="admin">
    {(signedIn) => <AdminApp {...signedIn} />}
  </Shell>,
  document.getElementById("root")!,
);
