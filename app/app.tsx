/**
 * @module The shell: before sign-in, the set-up or sign-in page; after, a skip link, the menu,
 * the page of the hash route (loaded when first opened), the step-up dialog and the connection
 * state of the live events. When the route changes, focus moves to the new page's heading.
 */
import type { ComponentType } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, messageOf } from "./lib/api.ts";
import { accountState, refresh } from "./lib/account.ts";
import { closeEvents, connection } from "./lib/events.ts";
import { href, useRoute } from "./lib/router.ts";
import { useStore } from "./lib/store.ts";
import { PAGES, type PageProps } from "./routes.ts";
import { SetupPage, SigninPage } from "./pages/welcome.tsx";
import { StepUpDialog } from "./components/stepup-dialog.tsx";
import { Button, ErrorNote } from "./components/ui.tsx";

export function App() {
  const state = useStore(accountState);
  if (state.phase === "loading") return <p class="boot">Loading…</p>;
  if (state.phase === "unreachable")
    return (
      <main class="welcome">
        <h1>Charter</h1>
        <ErrorNote error={`The node did not answer (${state.error}).`} />
        <Button kind="primary" onClick={() => void refresh()}>
          Try again
        </Button>
      </main>
    );
  if (state.phase !== "in") return state.phase === "setup" ? <SetupPage /> : <SigninPage />;
  return <SignedIn firstName={state.boot.account.firstName ?? ""} />;
}

function SignedIn(props: { firstName: string }) {
  const route = useRoute();
  const name = route[0] ?? "";
  const entry = PAGES.find((page) => page.path === name);
  const [menuOpen, setMenuOpen] = useState(false);
  const live = useStore(connection);
  const [signOutError, setSignOutError] = useState<string | null>(null);
  useEffect(() => setMenuOpen(false), [name]);

  const signOut = async () => {
    try {
      closeEvents();
      await api("POST", "/api/account/signout", {});
      await refresh();
    } catch (error) {
      setSignOutError(messageOf(error));
    }
  };

  return (
    <>
      <a class="skip" href="#main" onClick={(event) => (event.preventDefault(), document.getElementById("page-title")?.focus())}>
        Skip to the page
      </a>
      <div class="shell">
        <header class="top">
          <a class="brand" href={href()}>
            Charter
          </a>
          <button type="button" class="menu-toggle btn plain" aria-expanded={menuOpen ? "true" : "false"} aria-controls="menu" onClick={() => setMenuOpen(!menuOpen)}>
            Menu
          </button>
          <div class="who">
            <span class={`live ${live}`} role="status" aria-label={`Live updates: ${live}`} title={`Live updates: ${live}`} />
            <span class="name">{props.firstName}</span>
            <Button onClick={() => void signOut()}>Sign out</Button>
          </div>
        </header>
        <nav id="menu" aria-label="Pages" class={menuOpen ? "open" : ""}>
          <ul>
            {PAGES.map((page) => (
              <li key={page.path}>
                <a href={href(...(page.path === "" ? [] : [page.path]))} aria-current={page.path === name ? "page" : undefined}>
                  {page.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main">
          <ErrorNote error={signOutError} />
          {entry === undefined ? <NotFound /> : <LazyPage key={entry.path} load={entry.load} rest={route.slice(1)} />}
        </main>
      </div>
      <StepUpDialog />
    </>
  );
}

/** Whether the route has changed since the app loaded (then a page that opens takes the focus). */
let navigated = false;
addEventListener("hashchange", () => {
  navigated = true;
});
const loaded = new Map<() => Promise<{ default: ComponentType<PageProps> }>, ComponentType<PageProps>>();

function LazyPage(props: { load: () => Promise<{ default: ComponentType<PageProps> }>; rest: readonly string[] }) {
  const [Page, setPage] = useState<ComponentType<PageProps> | null>(() => loaded.get(props.load) ?? null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (Page !== null) return;
    props.load().then(
      (module) => {
        loaded.set(props.load, module.default);
        setPage(() => module.default);
      },
      (failure: unknown) => setError(messageOf(failure)),
    );
  }, [props.load]);
  const focused = useRef(false);
  // Before the browser paints: once the heading shows, it has the focus (an effect after paint left
  // a moment where the heading was there and the focus still on the link that opened it).
  useLayoutEffect(() => {
    if (Page === null || focused.current) return;
    focused.current = true;
    // A page opened from within the app: its heading takes focus, so keyboard and screen-reader use
    // starts there. The page a load opens leaves focus alone (the first Tab reaches the skip link).
    if (navigated) document.getElementById("page-title")?.focus();
  }, [Page]);
  if (error !== null) return <ErrorNote error={`The page could not be loaded: ${error}`} />;
  if (Page === null) return <p class="boot">Loading…</p>;
  return <Page rest={props.rest} />;
}

function NotFound() {
  return (
    <>
      <h1 tabIndex={-1} id="page-title">
        No such page
      </h1>
      <p>
        <a href={href()}>Go home</a>
      </p>
    </>
  );
}
