/**
 * @module The app's entry: its stylesheet, the shell, and the first read of the account.
 */
import { render } from "preact";
import "./app.css";
import { App } from "./app.tsx";
import { refresh } from "./lib/account.ts";
import { captureOAuthReturn } from "./lib/oauth-return.ts";

// Before the first render reads the route: an authorization coming back becomes #/settings/tools.
captureOAuthReturn();

const root = document.getElementById("app");
if (root !== null) {
  root.replaceChildren();
  render(<App />, root);
}
void refresh();
