/** Entry of the employee page at `/`. */
import { render } from "preact";
import { Shell } from "../components/Shell";
import { LanguageProvider } from "../lib/i18n/language-choice";
import { ChatApp } from "./ChatApp";
import { MyData } from "./MyData";
import "../styles.css";

render(
  <LanguageProvider>
    <Shell title="shell.title.tutor" nav={<MyData />}>
      {(signedIn) => <ChatApp {...signedIn} />}
    </Shell>
  </LanguageProvider>,
  document.getElementById("root")!,
);
