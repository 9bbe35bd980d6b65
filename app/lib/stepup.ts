/**
 * @module Step-up prompts. A sensitive change the node refuses with `step-up-required` opens the
 * step-up dialog (`<StepUpDialog>` in the shell); when the person confirms with a passkey, the
 * change is sent again, once. Cancelling leaves the change unsent and says so.
 */
import { Refusal } from "./api.ts";
import { Store } from "./store.ts";

/** The open prompt: why it asks, and how it ends. */
export interface StepUpPrompt {
  readonly reason: string;
  readonly resolve: (confirmed: boolean) => void;
}

export const stepUpPrompt = new Store<StepUpPrompt | null>(null);

/** Asks the person to confirm it's them (the dialog), then steps up; false when they cancel. */
function askStepUp(reason: string): Promise<boolean> {
  return new Promise((resolve) => {
    stepUpPrompt.get()?.resolve(false);
    stepUpPrompt.set({
      reason,
      resolve: (confirmed) => {
        stepUpPrompt.set(null);
        resolve(confirmed);
      },
    });
  });
}

/** Runs `work`; when the node asks for a step-up, prompts for it and runs `work` once more. */
export async function withStepUp<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof Refusal) || error.code !== "step-up-required") throw error;
    if (!(await askStepUp(error.message))) throw new Refusal(403, { code: "step-up-cancelled", detail: "Not confirmed: nothing was changed." });
    return await work();
  }
}

