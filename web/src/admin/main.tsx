/** Entry of the admin console at `/admin`. */
import { render } from "preact";
import { Shell } from "../components/Shell";
import { AdminApp } from "./AdminApp";
import "../styles.css";

render(
  <Shell title="skillnet admin" role="admin">
    {(signedIn) => <AdminApp {...signedIn} />}
  </Shell>,
  document.getElementById("root")!,
);
