/**
 * @module The pages before sign-in. Set-up: the set-up code the node printed, a first name, then
 * a passkey made on this device, then the recovery codes, shown once. Sign-in: a passkey; or a
 * recovery code (a short session that may only add a new passkey); or, on a new device, the
 * pairing code another signed-in device shows (`#/pair?code=…` from its QR code).
 */
import { useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { type AccountView, refresh } from "../lib/account.ts";
import { useBusy } from "../lib/hooks.ts";
import { createPasskey, usePasskey } from "../lib/passkeys.ts";
import { currentRoute, routeQuery } from "../lib/router.ts";
import { Button, ErrorNote, Field, Status } from "../components/ui.tsx";

export function SetupPage() {
  const [firstName, setFirstName] = useState("");
  const [setupCode, setSetupCode] = useState("");
  const [codes, setCodes] = useState<readonly string[] | null>(null);
  const [status, setStatus] = useState("");
  const [joining, setJoining] = useState(false);
  const [home, setHome] = useState("");
  const [pairCode, setPairCode] = useState("");
  const [run, busy, error] = useBusy();

  const join = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      setStatus("Joining…");
      const joined = await api<{ home: string; firstName: string }>("POST", "/api/sync/join", { url: home.trim(), code: pairCode.trim(), setupCode: setupCode.trim() });
      setFirstName(joined.firstName);
      setJoining(false);
      setStatus(`Joined ${joined.home}: now make this device's passkey.`);
    });
  };

  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      setStatus("Creating the account…");
      const begin = await api<{ options: unknown }>("POST", "/api/account/create/begin", { firstName: firstName.trim(), setupCode: setupCode.trim() });
      setStatus("Make a passkey on this device…");
      const response = await createPasskey(begin.options);
      await api("POST", "/api/account/create/register", { response });
      const finished = await api<{ recoveryCodes: string[]; account: AccountView }>("POST", "/api/account/create/finish", {});
      setStatus(`Welcome, ${finished.account.firstName ?? ""}: the account is set up and you are signed in.`);
      setCodes(finished.recoveryCodes);
    }).then(() => setStatus((s) => (s.startsWith("Welcome") ? s : "")));
  };

  if (codes !== null) return <RecoveryCodes codes={codes} status={status} onDone={() => void refresh()} />;
  if (joining)
    return (
      <main class="welcome">
        <h1 tabIndex={-1} id="page-title">
          Join a node you already have
        </h1>
        <p>On your home node, open Account → "Pair another node": it shows a code. This node then keeps a copy of your records and syncs with it.</p>
        <form onSubmit={join} class="stack">
          <Field label="Home node's address" hint="As https://…, or http:// on this machine.">
            {(id, describedBy) => <input id={id} type="url" required aria-describedby={describedBy} value={home} onInput={(e) => setHome(e.currentTarget.value)} />}
          </Field>
          <Field label="Pairing code">{(id) => <input id={id} required autocomplete="one-time-code" spellcheck={false} value={pairCode} onInput={(e) => setPairCode(e.currentTarget.value)} />}</Field>
          <Field label="This node's set-up code">{(id) => <input id={id} required autocomplete="one-time-code" spellcheck={false} value={setupCode} onInput={(e) => setSetupCode(e.currentTarget.value)} />}</Field>
          <div class="buttons">
            <Button type="submit" kind="primary" busy={busy}>
              Join
            </Button>
            <Button onClick={() => setJoining(false)}>Back</Button>
          </div>
        </form>
        {status === "" ? null : <Status>{status}</Status>}
        <ErrorNote error={error} />
      </main>
    );
  return (
    <main class="welcome">
      <h1 tabIndex={-1} id="page-title">
        Set up this node
      </h1>
      <p>
        Choose the name the node calls you, and enter the set-up code it printed when it started (<code>charter account setup-code</code> prints it again). This device then makes a passkey: there is no
        password.
      </p>
      <form onSubmit={submit} class="stack">
        <Field label="First name">{(id) => <input id={id} name="firstName" autocomplete="given-name" required maxLength={64} value={firstName} onInput={(e) => setFirstName(e.currentTarget.value)} />}</Field>
        <Field label="Set-up code" hint="Eight characters, as XXXX-XXXX.">
          {(id, describedBy) => (
            <input id={id} name="setupCode" autocomplete="one-time-code" required spellcheck={false} autocapitalize="characters" aria-describedby={describedBy} value={setupCode} onInput={(e) => setSetupCode(e.currentTarget.value)} />
          )}
        </Field>
        <Button type="submit" kind="primary" busy={busy}>
          Create the account
        </Button>
      </form>
      <p>
        Already have a Charter node?{" "}
        <button type="button" class="link" onClick={() => setJoining(true)}>
          Join a node I already have
        </button>
        .
      </p>
      {status === "" ? null : <Status>{status}</Status>}
      <ErrorNote error={error} />
    </main>
  );
}

/** The recovery codes, shown once after set-up (and after regenerating them). */
export function RecoveryCodes(props: { codes: readonly string[]; status?: string; onDone: () => void }) {
  return (
    <main class="welcome">
      <h1 tabIndex={-1} id="page-title">
        Your recovery codes
      </h1>
      {props.status ? <Status>{props.status}</Status> : null}
      <p>Each code signs you in once, to add a new passkey if you lose this one. Write them down and keep them safe: they are shown only now.</p>
      <ol class="codes" aria-label="Recovery codes">
        {props.codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <Button kind="primary" onClick={props.onDone}>
        I have saved them
      </Button>
    </main>
  );
}

export function SigninPage() {
  const pairFromLink = currentRoute()[0] === "pair" ? (routeQuery().get("code") ?? "") : "";
  const [mode, setMode] = useState<"passkey" | "recovery" | "pair">(pairFromLink === "" ? "passkey" : "pair");
  const [code, setCode] = useState(pairFromLink);
  const [status, setStatus] = useState("");
  const [run, busy, error] = useBusy();

  const signIn = () =>
    void run(async () => {
      setStatus("Sign in with your passkey…");
      const begin = await api<{ options: unknown }>("POST", "/api/account/signin/begin", {});
      const response = await usePasskey(begin.options);
      await api("POST", "/api/account/signin/finish", { response });
      setStatus("");
      await refresh();
    }).then(() => setStatus(""));

  const useRecovery = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await api("POST", "/api/account/recovery/use", { code: code.trim() });
      setStatus("Make a new passkey on this device…");
      const begin = await api<{ options: unknown }>("POST", "/api/account/passkey/begin", {});
      const response = await createPasskey(begin.options);
      await api("POST", "/api/account/passkey/finish", { response, label: "added with a recovery code" });
      setStatus("The new passkey is saved: sign in with it.");
      setMode("passkey");
      setCode("");
    });
  };

  const pair = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const begin = await api<{ options: unknown }>("POST", "/api/pair/begin", { code: code.trim() });
      setStatus("Make a passkey on this device…");
      const response = await createPasskey(begin.options);
      await api("POST", "/api/pair/finish", { response, label: navigator.platform || "paired device" });
      location.hash = "#/";
      setStatus("");
      await refresh();
    });
  };

  return (
    <main class="welcome">
      <h1 tabIndex={-1} id="page-title">
        Sign in
      </h1>
      {mode === "passkey" ? (
        <div class="stack">
          <Button kind="primary" busy={busy} onClick={signIn}>
            Sign in with a passkey
          </Button>
          <p>
            Lost your passkey?{" "}
            <button type="button" class="link" onClick={() => setMode("recovery")}>
              Use a recovery code
            </button>
            . A new device?{" "}
            <button type="button" class="link" onClick={() => setMode("pair")}>
              Enter a pairing code
            </button>
            .
          </p>
        </div>
      ) : (
        <form class="stack" onSubmit={mode === "recovery" ? useRecovery : pair}>
          <Field label={mode === "recovery" ? "Recovery code" : "Pairing code"} hint={mode === "pair" ? "Shown on a device that is signed in: Account → Pair a device." : "One of the codes you saved at set-up."}>
            {(id, describedBy) => <input id={id} required autocomplete="one-time-code" spellcheck={false} aria-describedby={describedBy} value={code} onInput={(e) => setCode(e.currentTarget.value)} />}
          </Field>
          <div class="buttons">
            <Button type="submit" kind="primary" busy={busy}>
              {mode === "recovery" ? "Use the code" : "Pair this device"}
            </Button>
            <Button onClick={() => setMode("passkey")}>Back</Button>
          </div>
        </form>
      )}
      {status === "" ? null : <Status>{status}</Status>}
      <ErrorNote error={error} />
    </main>
  );
}
