/**
 * @module What a connector account's settings may be, per connector: each field's kind and whether
 * it is required. Pure checks answering every wrong field at once (a route turns them into one
 * `400`). An account without transport security is allowed only to a host on this machine or the
 * local network (a password never crosses the internet in clear).
 */
import { isLocalHost } from "../assistant-host/connection-rules.ts";
import { parseDeclaration } from "../../../../shared/worker/egress.ts";

type FieldKind = "host" | "port" | "security" | "text" | "address";

interface FieldRule {
  readonly kind: FieldKind;
  readonly required: boolean;
}

/** The fields of each connector's accounts. A connector missing here has no accounts. */
export const ACCOUNT_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  email: {
    smtpHost: { kind: "host", required: true },
    smtpPort: { kind: "port", required: true },
    smtpSecurity: { kind: "security", required: true },
    imapHost: { kind: "host", required: false },
    imapPort: { kind: "port", required: false },
    imapSecurity: { kind: "security", required: false },
    user: { kind: "text", required: false },
    from: { kind: "address", required: true },
    name: { kind: "text", required: false },
  },
};

export type AccountFields = Record<string, string | number>;

export interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

const ADDRESS = /^[^\s@<>(),;:"[\]\\]{1,64}@[A-Za-z0-9.-]{1,253}$/;

/** The account's fields checked: the fields, or every problem. */
export function checkAccountFields(connector: string, raw: unknown): { ok: true; fields: AccountFields } | { ok: false; errors: FieldError[] } {
  const rules = ACCOUNT_FIELDS[connector];
  if (rules === undefined) return { ok: false, errors: [{ pointer: "#", detail: `connector ${connector} has no accounts` }] };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { ok: false, errors: [{ pointer: "#/fields", detail: "an object" }] };
  const input = raw as Record<string, unknown>;
  const errors: FieldError[] = [];
  const fields: AccountFields = {};
  for (const key of Object.keys(input)) if (rules[key] === undefined) errors.push({ pointer: `#/fields/${key}`, detail: `not a field of a ${connector} account` });
  for (const [name, rule] of Object.entries(rules)) {
    const value = input[name];
    const pointer = `#/fields/${name}`;
    if (value === undefined || value === null || value === "") {
      if (rule.required) errors.push({ pointer, detail: "required" });
      continue;
    }
    const problem = fieldProblem(rule.kind, value);
    if (problem !== null) errors.push({ pointer, detail: problem });
    else fields[name] = value as string | number;
  }
  for (const prefix of ["smtp", "imap"]) {
    const host = fields[`${prefix}Host`];
    if (fields[`${prefix}Security`] === "none" && typeof host === "string" && !isLocalHost(host)) {
      errors.push({ pointer: `#/fields/${prefix}Security`, detail: "without TLS, only a host on this machine or the local network" });
    }
    if (host !== undefined && (input[`${prefix}Port`] === undefined || input[`${prefix}Security`] === undefined)) {
      errors.push({ pointer: `#/fields/${prefix}Port`, detail: `${prefix}Host needs ${prefix}Port and ${prefix}Security` });
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, fields };
}

function fieldProblem(kind: FieldKind, value: unknown): string | null {
  switch (kind) {
    case "host":
      return typeof value === "string" && parseDeclaration(value) !== null && !value.includes(":") ? null : "a host name or IPv4 address";
    case "port":
      return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 65535 ? null : "a port from 1 to 65535";
    case "security":
      return value === "tls" || value === "starttls" || value === "none" ? null : "one of tls, starttls, none";
    case "address":
      return typeof value === "string" && ADDRESS.test(value) ? null : "an email address";
    case "text":
      return typeof value === "string" && value.length <= 200 && !/[\r\n\0]/.test(value) ? null : "a line of at most 200 characters";
  }
}
