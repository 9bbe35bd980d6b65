/**
 * @module What a tool server is, as the person configures it, and the rules of that input: an id,
 * a name, where it comes from (a catalogue entry or `custom`), how it runs (a stdio command as an
 * argv array with its environment given explicitly, or a streamable HTTP URL), its daily call
 * ceiling. Pure: a request's fields in, the configuration or every wrong field out (each with its
 * JSON pointer), so a route answers `400` naming them all.
 */
import { CUSTOM, catalogueEntry } from "./catalogue.ts";

/** The most servers a node keeps. */
export const MAX_SERVERS = 20;
/** A server's daily call ceiling when the person names none, and its bounds. */
export const DEFAULT_CEILING = 200;
export const MAX_CEILING = 100_000;
/** Bounds of a command, its arguments and its environment. */
const MAX_ARGV = 64;
const MAX_ARG_CHARS = 4096;
const MAX_ENV = 32;
const MAX_URL_CHARS = 2048;
const MAX_NAME_CHARS = 100;

/** What a server id is: lower-case letters, digits and `-`, 1–32 of them, starting with a letter or digit. */
export const SERVER_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** How the node reaches a server. */
export type ServerTransport = "stdio" | "http";

/** A server's configuration (its environment's values are kept apart, sealed). */
export interface ServerConfig {
  readonly id: string;
  readonly name: string;
  readonly catalogue: string;
  readonly transport: ServerTransport;
  /** A stdio server's argv; null for HTTP. */
  readonly command: readonly string[] | null;
  /** An HTTP server's endpoint; null for stdio. */
  readonly url: string | null;
  readonly ceiling: number;
}

/** One wrong field of a request. */
export interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

/** A new server as `POST …/tools` sends it, not yet checked. */
export interface ServerInput {
  readonly id?: unknown;
  readonly name?: unknown;
  readonly catalogue?: unknown;
  readonly command?: unknown;
  readonly args?: unknown;
  readonly env?: unknown;
  readonly url?: unknown;
  readonly ceiling?: unknown;
}

/** A new server checked: its configuration and its environment (to be sealed). */
export interface CheckedServer {
  readonly config: ServerConfig;
  readonly env: Record<string, string>;
}

/** Checks a new server (whether its id is free is the caller's to answer: a conflict, not a field error). */
export function checkNewServer(input: ServerInput): { ok: true; value: CheckedServer } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const catalogue = typeof input.catalogue === "string" ? input.catalogue : "";
  const entry = catalogueEntry(catalogue);
  if (entry === undefined && catalogue !== CUSTOM) errors.push({ pointer: "#/catalogue", detail: "catalogue is the id of a catalogue entry, or custom" });
  const env = envOf(input.env, errors);
  const ceiling = ceilingOf(input.ceiling, errors) ?? DEFAULT_CEILING;
  let command: string[] | null = null;
  let url: string | null = null;
  if (catalogue === CUSTOM) {
    if (input.args !== undefined) errors.push({ pointer: "#/args", detail: "a custom server takes its whole command; args go with a catalogue entry" });
    if ((input.command === undefined) === (input.url === undefined)) errors.push({ pointer: "#/command", detail: "a custom server has either a command (stdio) or a url (streamable HTTP)" });
    else if (input.command !== undefined) command = argvOf(input.command, "#/command", 1, errors);
    else url = urlOf(input.url, errors);
  } else if (entry !== undefined) {
    if (input.command !== undefined) errors.push({ pointer: "#/command", detail: `${entry.id} runs its catalogue recipe: give args, or add a custom server` });
    if (input.url !== undefined) errors.push({ pointer: "#/url", detail: `${entry.id} has its own URL: add a custom server for another` });
    if (entry.transport === "http") {
      if (input.args !== undefined) errors.push({ pointer: "#/args", detail: `${entry.id} takes no args` });
      url = entry.url ?? null;
    } else {
      const args = input.args === undefined ? [] : argvOf(input.args, "#/args", 0, errors);
      if (entry.args === undefined && args !== null && args.length > 0) errors.push({ pointer: "#/args", detail: `${entry.id} takes no args` });
      if (entry.args?.required === true && args !== null && args.length === 0) errors.push({ pointer: "#/args", detail: `${entry.id} needs args: ${entry.args.description}` });
      command = args === null ? null : [...(entry.command ?? []), ...args];
    }
  }
  if (url !== null && input.env !== undefined) errors.push({ pointer: "#/env", detail: "an HTTP server runs elsewhere: it has no environment here" });
  const fallbackId = entry?.id ?? (command !== null ? slug(command[0] ?? "") : url !== null ? slug(hostOf(url)) : "server");
  const id = idOf(input.id, fallbackId, errors);
  const name = nameOf(input.name, entry?.name ?? id, errors);
  if (errors.length > 0) return { ok: false, errors };
  const transport: ServerTransport = url !== null ? "http" : "stdio";
  return { ok: true, value: { config: { id, name, catalogue, transport, command, url, ceiling }, env: env ?? {} } };
}

/** A change as `PATCH …/tools/{id}` sends it, not yet checked. */
export interface ServerChange {
  readonly name?: unknown;
  readonly ceiling?: unknown;
  readonly command?: unknown;
  readonly env?: unknown;
  readonly url?: unknown;
}

/** Checks a change of `config`: the new configuration, the new environment (undefined: unchanged), and whether what it runs changed (that needs a step-up). */
export function checkServerChange(config: ServerConfig, change: ServerChange): { ok: true; config: ServerConfig; env: Record<string, string> | undefined; runs: boolean } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const name = change.name === undefined ? config.name : nameOf(change.name, config.name, errors);
  const ceiling = change.ceiling === undefined ? config.ceiling : (ceilingOf(change.ceiling, errors) ?? config.ceiling);
  const env = change.env === undefined ? undefined : (envOf(change.env, errors) ?? undefined);
  let command = config.command;
  let url = config.url;
  if (change.command !== undefined) {
    if (config.transport !== "stdio") errors.push({ pointer: "#/command", detail: "an HTTP server has a url, not a command" });
    else if (config.catalogue !== CUSTOM) errors.push({ pointer: "#/command", detail: "a catalogue server runs its recipe: remove it and add a custom server for another command" });
    else command = argvOf(change.command, "#/command", 1, errors);
  }
  if (change.env !== undefined && config.transport !== "stdio") errors.push({ pointer: "#/env", detail: "an HTTP server runs elsewhere: it has no environment here" });
  if (change.url !== undefined) {
    if (config.transport !== "http" || config.catalogue !== CUSTOM) errors.push({ pointer: "#/url", detail: "only a custom HTTP server's url can change" });
    else url = urlOf(change.url, errors);
  }
  if (errors.length > 0) return { ok: false, errors };
  const runs = env !== undefined || JSON.stringify(command) !== JSON.stringify(config.command) || url !== config.url;
  return { ok: true, config: { ...config, name, ceiling, command, url }, env, runs };
}

/** An argv array: `min`–MAX_ARGV strings, each 1–MAX_ARG_CHARS characters without NUL. A string (a shell line) is refused. */
function argvOf(value: unknown, pointer: string, min: number, errors: FieldError[]): string[] | null {
  if (!Array.isArray(value)) {
    errors.push({ pointer, detail: `${pointer.slice(2)} is an array of arguments (argv), never one shell string` });
    return null;
  }
  if (value.length < min || value.length > MAX_ARGV) {
    errors.push({ pointer, detail: `${pointer.slice(2)} has ${min}–${MAX_ARGV} entries` });
    return null;
  }
  const bad = value.findIndex((a) => typeof a !== "string" || a === "" || a.length > MAX_ARG_CHARS || a.includes("\0"));
  if (bad >= 0) {
    errors.push({ pointer: `${pointer}/${bad}`, detail: `each argument is a non-empty string of at most ${MAX_ARG_CHARS} characters, without NUL` });
    return null;
  }
  return value as string[];
}

/** An environment: at most MAX_ENV names (`[A-Za-z_][A-Za-z0-9_]*`) to string values. */
function envOf(value: unknown, errors: FieldError[]): Record<string, string> | null {
  if (value === undefined) return null;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    errors.push({ pointer: "#/env", detail: "env is an object of variable names to string values" });
    return null;
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_ENV) {
    errors.push({ pointer: "#/env", detail: `env has at most ${MAX_ENV} variables` });
    return null;
  }
  const before = errors.length;
  for (const [name, v] of entries) {
    const pointer = `#/env/${name.slice(0, 128).replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (!ENV_NAME.test(name)) errors.push({ pointer, detail: "a variable's name is letters, digits and _, not starting with a digit" });
    else if (typeof v !== "string" || v.length > MAX_ARG_CHARS || v.includes("\0")) errors.push({ pointer, detail: `a variable's value is a string of at most ${MAX_ARG_CHARS} characters, without NUL` });
  }
  return errors.length > before ? null : (Object.fromEntries(entries) as Record<string, string>);
}

/** An http(s) URL without credentials in it. */
function urlOf(value: unknown, errors: FieldError[]): string | null {
  const detail = `url is an http or https URL of at most ${MAX_URL_CHARS} characters, without a user or password in it`;
  if (typeof value !== "string" || value.length > MAX_URL_CHARS || !URL.canParse(value)) {
    errors.push({ pointer: "#/url", detail });
    return null;
  }
  const url = new URL(value);
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== "") {
    errors.push({ pointer: "#/url", detail });
    return null;
  }
  return url.href;
}

function ceilingOf(value: unknown, errors: FieldError[]): number | null {
  if (value === undefined) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_CEILING) {
    errors.push({ pointer: "#/ceiling", detail: `ceiling is a whole number of calls a day, 1–${MAX_CEILING}` });
    return null;
  }
  return value;
}

function idOf(value: unknown, fallback: string, errors: FieldError[]): string {
  const id = value === undefined ? fallback : value;
  if (typeof id === "string" && SERVER_ID.test(id)) return id;
  errors.push({ pointer: "#/id", detail: "id is 1–32 of a-z, 0-9 and -, starting with a letter or digit" });
  return "";
}

function nameOf(value: unknown, fallback: string, errors: FieldError[]): string {
  const name = value === undefined ? fallback : value;
  if (typeof name === "string" && name.trim() !== "" && name.length <= MAX_NAME_CHARS) return name.trim();
  errors.push({ pointer: "#/name", detail: `name is 1–${MAX_NAME_CHARS} characters` });
  return "";
}

/** A default id from a command's program or a URL's host: its last path part, lower-cased, as an id. */
function slug(text: string): string {
  const base = text.split(/[\\/]/).at(-1) ?? "";
  return base.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 32) || "server";
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).hostname.split(".").slice(0, -1).join("-") || new URL(url).hostname : "";
}
