/** Entry of the employee page at `/`. */
import { render } from "preact";
import { Shell } from "../components/Shell";
import { ChatApp } from "./ChatApp";
import { MyData } from "./MyData";
import "../styles.css";

render(
  <Shell title="skillnet tutor" nav={<MyData />}>
    {(signedIn) => <ChatApp {...signedIn} />}
  </Shell>,
  document.getElementById("root")!,
);
