/**
 * @module The step-up prompt: a modal dialog (the browser's own `<dialog>`, which keeps focus
 * inside and closes on Escape) asking the person to confirm it's them with a passkey before a
 * sensitive change is sent again.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { messageOf } from "../lib/api.ts";
import { stepUpNow } from "../lib/passkeys.ts";
import { stepUpPrompt } from "../lib/stepup.ts";
import { useStore } from "../lib/store.ts";
import { Button, ErrorNote } from "./ui.tsx";

export function StepUpDialog() {
  const prompt = useStore(stepUpPrompt);
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (prompt !== null && !element.open) {
      setError(null);
      element.showModal();
    }
    if (prompt === null && element.open) element.close();
  }, [prompt]);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await stepUpNow();
      prompt?.resolve(true);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={dialog} aria-labelledby="stepup-title" aria-describedby="stepup-why" onCancel={() => prompt?.resolve(false)}>
      <h2 id="stepup-title">Confirm it's you</h2>
      <p id="stepup-why">This change is a sensitive one: confirm it's you with your passkey, and it is sent.</p>
      {prompt?.reason ? <p class="muted">The node says: {prompt.reason}</p> : null}
      <ErrorNote error={error} />
      <div class="buttons">
        <Button kind="primary" busy={busy} onClick={() => void confirm()}>
          Confirm with a passkey
        </Button>
        <Button onClick={() => prompt?.resolve(false)}>Cancel</Button>
      </div>
    </dialog>
  );
}
