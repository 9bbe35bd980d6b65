/**
 * @module The app page's one script, a plain ES module run as it is written. It reads the account's
 * state (`GET /api/account`) and shows one view: creating the account, signing in with a passkey,
 * or the signed-in view (step-up, sign-out, the live events of `/api/events`, recording a test
 * invoice through `POST /api/data/act`). Passkeys are the browser's own
 * (`navigator.credentials.create`/`get`, their options parsed from the node's JSON and the
 * credential sent back as its `toJSON()`). A refusal is a problem document, whose `detail` is
 * shown; an action the contract refuses is answered with its receipt, whose reason is shown.
 * Text only goes into the page (never HTML), as the page's Trusted Types policy requires.
 */
/* global document, navigator, location, WebSocket, PublicKeyCredential, crypto, FormData */

/** The element of `id`; a page without it is a broken page. */
function $(id) {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element;
}

/** The views, one shown at a time (the recovery codes show above the signed-in view). */
const VIEWS = ["loading", "setup", "signin", "home"];

function show(view) {
  for (const v of VIEWS) $(v).hidden = v !== view;
}

/** Says `text` in the status line (read out by screen readers) and clears any error. */
function say(text) {
  $("status").textContent = text;
  $("error").textContent = "";
  $("error").hidden = true;
}

function sayError(text) {
  $("error").textContent = text;
  $("error").hidden = false;
}

/** A refused request: the HTTP status and the answer (a problem document: its detail is the message). */
class Refusal extends Error {
  constructor(status, body) {
    const detail = typeof body?.detail === "string" ? body.detail : typeof body?.title === "string" ? body.title : `the node answered ${status}`;
    super(detail);
    this.status = status;
    this.body = body;
  }
}

/** Sends `method path` (with a JSON body when given) and answers the JSON answer (null when empty); throws a Refusal otherwise. */
async function call(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { accept: "application/json, application/problem+json" } };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let value;
  try {
    value = text === "" ? null : JSON.parse(text);
  } catch {
    value = null;
  }
  if (!res.ok) throw new Refusal(res.status, value);
  return value;
}

/** What went wrong, in words for the person. */
function messageOf(error) {
  if (error instanceof Refusal) return error.message;
  if (error?.name === "NotAllowedError") return "The passkey request was cancelled or timed out.";
  if (error?.name === "InvalidStateError") return "This device already has a passkey for this node.";
  if (error instanceof TypeError) return `The node could not be reached (${error.message}).`;
  return String(error?.message ?? error);
}

/** Runs `work` with `button` disabled, showing what fails. */
async function busy(button, work) {
  button.disabled = true;
  try {
    await work();
  } catch (error) {
    sayError(messageOf(error));
  } finally {
    button.disabled = false;
  }
}

/** A new passkey for the node's creation options; answers the credential as JSON. */
async function createPasskey(options) {
  const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
  if (credential === null) throw new Error("no passkey was made");
  return credential.toJSON();
}

/** An assertion by one of the node's passkeys for its request options; answers it as JSON. */
async function usePasskey(options) {
  const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
  if (credential === null) throw new Error("no passkey was used");
  return credential.toJSON();
}

// ---- The account's state, and the view it calls for.

/** Reads the account's state and shows its view. */
async function refresh() {
  const account = await call("GET", "/api/account");
  if (!account.setUp) {
    closeEvents();
    show("setup");
  } else if (!account.signedIn) {
    closeEvents();
    show("signin");
  } else {
    await showHome(account);
  }
  return account;
}

async function showHome(account) {
  $("first-name-shown").textContent = account.firstName ?? "";
  $("seal").textContent = account.seal ?? "";
  show("home");
  openEvents();
  await showSteppedUp();
}

/** Shows until when this session is stepped up, as the node's session list says. */
async function showSteppedUp() {
  try {
    const sessions = await call("GET", "/api/account/sessions");
    const current = sessions.items.find((s) => s.current);
    const until = current?.steppedUpUntil ?? null;
    $("stepped-up").textContent = until !== null && Date.parse(until) > Date.now() ? `yes, until ${new Date(until).toLocaleTimeString()}` : "no";
  } catch (error) {
    $("stepped-up").textContent = messageOf(error);
  }
}

// ---- Creating the account: begin → the new passkey → register → finish.

$("setup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const data = new FormData(form);
  void busy(form.querySelector("button"), async () => {
    say("Creating the account…");
    const begin = await call("POST", "/api/account/create/begin", { firstName: String(data.get("firstName")).trim(), setupCode: String(data.get("setupCode")).trim() });
    say("Make a passkey on this device…");
    const response = await createPasskey(begin.options);
    // The answer sets the set-up ticket's cookie, which the finishing call carries.
    await call("POST", "/api/account/create/register", { response });
    const finished = await call("POST", "/api/account/create/finish", {});
    form.reset();
    showRecoveryCodes(finished.recoveryCodes);
    await showHome(finished.account);
    say(`Welcome, ${finished.account.firstName}: the account is set up and you are signed in.`);
  });
});

function showRecoveryCodes(codes) {
  const list = $("recovery-codes");
  list.replaceChildren(
    ...codes.map((code) => {
      const item = document.createElement("li");
      item.textContent = code;
      return item;
    }),
  );
  $("recovery").hidden = false;
}

$("recovery-done").addEventListener("click", () => {
  // Shown once: the codes leave the page.
  $("recovery-codes").replaceChildren();
  $("recovery").hidden = true;
});

// ---- Signing in, out, and stepping up.

$("signin-button").addEventListener("click", (event) => {
  void busy(event.currentTarget, async () => {
    say("Sign in with your passkey…");
    const begin = await call("POST", "/api/account/signin/begin", {});
    const response = await usePasskey(begin.options);
    const finished = await call("POST", "/api/account/signin/finish", { response });
    await showHome(finished.account);
    say(`Signed in as ${finished.account.firstName}.`);
  });
});

$("signout-button").addEventListener("click", (event) => {
  void busy(event.currentTarget, async () => {
    closeEvents();
    await call("POST", "/api/account/signout", {});
    $("recovery-codes").replaceChildren();
    $("recovery").hidden = true;
    $("events-list").replaceChildren();
    $("invoice-answer").textContent = "";
    await refresh();
    say("Signed out.");
  });
});

$("stepup-button").addEventListener("click", (event) => {
  void busy(event.currentTarget, async () => {
    say("Confirm it's you with your passkey…");
    const begin = await call("POST", "/api/account/stepup/begin", {});
    const response = await usePasskey(begin.options);
    const { until } = await call("POST", "/api/account/stepup/finish", { response });
    await showSteppedUp();
    say(`Confirmed: sensitive changes are allowed until ${new Date(until).toLocaleTimeString()}.`);
  });
});

// ---- The live events of `/api/events`.

/** The most rows the events panel keeps (the newest first). */
const MAX_EVENT_ROWS = 50;
/** Close codes of the socket: the session ended (sign in again); the client fell behind (reconnect with `?after=`). */
const SESSION_ENDED = 4001;
let events = null;
let retryTimer = null;
let retryMs = 1000;
/** The id of the last frame received: a reconnection asks for what came after it. */
let lastId = null;

function openEvents() {
  if (events !== null) return;
  clearTimeout(retryTimer);
  const after = lastId === null ? "" : `?after=${encodeURIComponent(lastId)}`;
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/api/events${after}`);
  events = socket;
  $("events-state").textContent = "connecting…";
  socket.addEventListener("open", () => {
    retryMs = 1000;
    $("events-state").textContent = "connected";
  });
  socket.addEventListener("message", (message) => addEvent(message.data));
  socket.addEventListener("close", (closed) => {
    if (events !== socket) return;
    events = null;
    if (closed.code === SESSION_ENDED) {
      $("events-state").textContent = "not connected";
      void refresh().then(() => say("The session has ended: sign in again."), (error) => sayError(messageOf(error)));
      return;
    }
    // Signed in still: try again, waiting longer each time.
    $("events-state").textContent = `disconnected${closed.code === 1006 ? "" : ` (${closed.code}${closed.reason === "" ? "" : `: ${closed.reason}`})`}; retrying in ${Math.round(retryMs / 1000)} s`;
    retryTimer = setTimeout(openEvents, retryMs);
    retryMs = Math.min(retryMs * 2, 30_000);
  });
}

function closeEvents() {
  clearTimeout(retryTimer);
  const socket = events;
  events = null;
  lastId = null;
  socket?.close(1000, "signed out");
  $("events-state").textContent = "not connected";
}

/** One frame (`{id, kind, …fields}`) as a row: its kind, namespace, action, outcome and seq. */
function addEvent(data) {
  let frame;
  try {
    frame = JSON.parse(data);
  } catch {
    frame = { kind: "unreadable" };
  }
  if (typeof frame?.id === "string") lastId = frame.id;
  const row = document.createElement("tr");
  for (const value of [frame?.kind, frame?.namespace, frame?.action, frame?.outcome, frame?.seq]) {
    const cell = document.createElement("td");
    cell.textContent = value === undefined || value === null ? "" : String(value);
    row.append(cell);
  }
  const list = $("events-list");
  list.prepend(row);
  while (list.rows.length > MAX_EVENT_ROWS) list.deleteRow(-1);
}

// ---- Recording a test invoice (std.invoices' `Record`).

/** `YYYY-MM-DD` of `date` in local time. */
function isoDay(date) {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
}

function randomId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

$("invoice-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const data = new FormData(form);
  const answer = $("invoice-answer");
  void busy(form.querySelector("button"), async () => {
    answer.textContent = "Recording…";
    const subject = `inv-test-${randomId()}`;
    const invoice = {
      supplier: String(data.get("supplier")).trim(),
      number: String(data.get("number")).trim(),
      amount_minor: Number(data.get("amount")),
      currency: String(data.get("currency")).trim().toUpperCase(),
      issued_on: String(data.get("issuedOn")),
      due_on: String(data.get("dueOn")),
    };
    const args = { reference: subject, ...invoice, source: "app page", digest: await sha256Hex(JSON.stringify(invoice)), note: "a test invoice" };
    let result;
    try {
      result = await call("POST", "/api/data/act", { namespace: "std.invoices", action: "Record", subject, args });
    } catch (error) {
      // A contract's refusal is a receipt too (422); anything else is a problem document.
      if (!(error instanceof Refusal && error.status === 422 && error.body?.receipt !== undefined)) {
        answer.textContent = `${subject}: not recorded: ${messageOf(error)}`;
        return;
      }
      result = error.body;
    }
    const { receipt } = result;
    const reason = receipt.reason === null ? "" : ` (${receipt.reason.message})`;
    answer.textContent = `${subject}: ${receipt.outcome} at seq ${receipt.seq}${reason}\n${JSON.stringify(receipt, null, 2)}`;
  });
});

// ---- Start.

const today = new Date();
$("inv-issued").value = isoDay(today);
$("inv-due").value = isoDay(new Date(today.getFullYear(), today.getMonth(), today.getDate() + 30));

refresh().catch((error) => {
  $("loading").textContent = "The node did not answer; reload the page to try again.";
  sayError(messageOf(error));
});
