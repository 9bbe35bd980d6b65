/**
 * @module Routes are the page's hash (`#/tasks`, `#/records/std.tasks/Task`), so the node serves
 * one document at `/`. `useRoute()` answers the path's parts; `href(...)` makes a link.
 */
import { useEffect, useState } from "preact/hooks";

/** The hash's path parts, decoded: `#/records/std.tasks/Task` → `["records", "std.tasks", "Task"]`. */
export function currentRoute(): string[] {
  const hash = location.hash.replace(/^#\/?/, "");
  const path = hash.split("?")[0] ?? "";
  return path === "" ? [] : path.split("/").map((part) => decodeURIComponent(part));
}

/** The hash's query (`#/library?folder=x`). */
export function routeQuery(): URLSearchParams {
  const at = location.hash.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : location.hash.slice(at + 1));
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = () => setRoute(currentRoute());
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}

/** A link's `href` for the route `parts`. */
export function href(...parts: readonly string[]): string {
  return `#/${parts.map((part) => encodeURIComponent(part)).join("/")}`;
}

export function navigate(...parts: readonly string[]): void {
  location.hash = href(...parts);
}
