/** Entry of the employee page at `/`. */
import { Shell } from "../components/Shell";
import { renderInReadersLanguage } from "../lib/i18n/language-choice";
import { ChatApp } from "./ChatApp";
import { MyData } from "./MyData";
import "../styles.css";

void renderInReadersLanguage(
  <Shell title="shell.title.tutor" nav={<MyData />}>
    {(signedIn) => <ChatApp {...signedIn} />}
  </Shell>,
  document.getElementById("root")!,
);
