/**
 * @module The app's pages, each loaded when first opened (its own chunk), so the first load
 * carries the shell and the sign-in pages only. `nav` is the menu's order.
 */
import type { ComponentType } from "preact";

/** What every page receives: the route's parts after its own name. */
export interface PageProps {
  readonly rest: readonly string[];
}

export interface PageEntry {
  readonly path: string;
  readonly label: string;
  readonly load: () => Promise<{ default: ComponentType<PageProps> }>;
}

export const PAGES: readonly PageEntry[] = [
  { path: "", label: "Home", load: () => import("./pages/home.tsx") },
  { path: "chat", label: "Assistant", load: () => import("./pages/chat.tsx") },
  { path: "mail", label: "Mail", load: () => import("./pages/mail.tsx") },
  { path: "tasks", label: "Tasks", load: () => import("./pages/tasks.tsx") },
  { path: "memory", label: "Memory", load: () => import("./pages/memory.tsx") },
  { path: "library", label: "Library", load: () => import("./pages/library.tsx") },
  { path: "vaults", label: "Knowledge", load: () => import("./pages/vaults.tsx") },
  { path: "records", label: "Records", load: () => import("./pages/records.tsx") },
  { path: "workbench", label: "Workbench", load: () => import("./pages/workbench.tsx") },
  { path: "dashboards", label: "Dashboards", load: () => import("./pages/dashboards.tsx") },
  { path: "calc", label: "Calc", load: () => import("./pages/calc.tsx") },
  { path: "identities", label: "Identities", load: () => import("./pages/identities.tsx") },
  { path: "exchange", label: "Exchange", load: () => import("./pages/exchange.tsx") },
  { path: "activity", label: "Activity", load: () => import("./pages/activity.tsx") },
  { path: "settings", label: "Settings", load: () => import("./pages/settings.tsx") },
  { path: "account", label: "Account", load: () => import("./pages/account.tsx") },
];
