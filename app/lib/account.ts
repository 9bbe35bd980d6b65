/**
 * @module The account as the app knows it: `GET /api/bootstrap` once signed in (the person, the
 * personal tenant and its contracts, counts, the model), `GET /api/account` before. `refresh()`
 * reads it again; a 401 anywhere (the session ended) reads it again too.
 */
import { api, onSessionEnded } from "./api.ts";
import { closeEvents, openEvents } from "./events.ts";
import { Store } from "./store.ts";

export interface AccountView {
  readonly setUp: boolean;
  readonly signedIn: boolean;
  readonly firstName: string | null;
  readonly seal: string | null;
}

export interface InstalledContract {
  readonly namespace: string;
  readonly version: string;
  readonly artifact: string;
  readonly installedAt: string;
}

export interface Bootstrap {
  readonly account: AccountView;
  readonly person: { readonly did: string | null };
  readonly tenant: { readonly handle: string; readonly did: string; readonly contracts: readonly InstalledContract[] } | null;
  readonly counts: { readonly tasksDue: number | null; readonly approvalsWaiting: number | null; readonly asksWaiting: number | null };
  readonly model: { readonly configured: boolean; readonly connection?: string; readonly model?: string };
  readonly node: { readonly version: string; readonly update: Record<string, unknown> };
  readonly events: { readonly after: string };
}

export type AccountState = { readonly phase: "loading" } | { readonly phase: "unreachable"; readonly error: string } | { readonly phase: "setup" | "signin"; readonly account: AccountView } | { readonly phase: "in"; readonly boot: Bootstrap };

export const accountState = new Store<AccountState>({ phase: "loading" });

/** Reads the account again and opens or closes the live events to match. */
export async function refresh(): Promise<void> {
  try {
    const account = await api<AccountView>("GET", "/api/account");
    if (!account.setUp || !account.signedIn) {
      closeEvents();
      accountState.set({ phase: account.setUp ? "signin" : "setup", account });
      return;
    }
    const boot = await api<Bootstrap>("GET", "/api/bootstrap");
    accountState.set({ phase: "in", boot });
    openEvents(boot.events.after, () => void refresh());
  } catch (error) {
    if (accountState.get().phase === "loading") accountState.set({ phase: "unreachable", error: error instanceof Error ? error.message : String(error) });
  }
}

onSessionEnded(() => {
  if (accountState.get().phase === "in") void refresh();
});
