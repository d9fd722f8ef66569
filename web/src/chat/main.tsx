/** Entry of the employee page at `/`. */
import { render } from "preact";
import { Shell } from "../components/Shell";
import { ChatApp } from "./ChatApp";
import "../styles.css";

render(
  <Shell title="skillnet tutor" nav={null}>
    {(signedIn) => <ChatApp {...signedIn} />}
  </Shell>,
  document.getElementById("root")!,
);
