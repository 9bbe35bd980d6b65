/**
 * @module What each webhook source sends and how its deliveries are told apart: the header its
 * signature is in and how it is checked, the delivery's id, its event and action. GitHub names
 * each delivery (`X-GitHub-Delivery`, a GUID, the same on a redelivery) and its event
 * (`X-GitHub-Event`); the body's `action` says what happened (`opened`). Mastodon sends neither
 * header (only `X-Hub-Signature`), but it signs a body once and sends exactly those bytes again on
 * each retry, so the body's SHA-256 is the delivery's id; the event is the body's `event` member
 * (`status.created`).
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { HookSource } from "../../../shared/protocol/outbox.ts";
import { verifyGithubSignature, verifyHubSignature } from "./hook-signatures.ts";

/** A delivery's id and event, or why its headers do not name them. */
export type DeliveryHead = { readonly ok: true; readonly delivery: string; readonly event: string } | { readonly ok: false; readonly detail: string };

/** How one source's deliveries are checked and named. */
export interface SourceRule {
  /** Whether the delivery's signature header signs its body (`raw`, and `raw` as text) under `secret`. */
  verify(secret: string, raw: Uint8Array, text: string, headers: IncomingHttpHeaders): Promise<boolean> | boolean;
  /** The delivery's id and event, from its headers and its parsed body. */
  head(headers: IncomingHttpHeaders, raw: Uint8Array, body: Record<string, unknown>): DeliveryHead;
}

const GITHUB_DELIVERY = /^[A-Za-z0-9-]{1,64}$/;
const GITHUB_EVENT = /^[a-z_]{1,64}$/;
const MASTODON_EVENT = /^[a-z_]{1,32}\.[a-z_]{1,32}$/;
const ACTION = /^[a-z_]{1,64}$/;

const github: SourceRule = {
  verify: (secret, _raw, text, headers) => verifyGithubSignature(secret, text, single(headers["x-hub-signature-256"])),
  head(headers) {
    const delivery = single(headers["x-github-delivery"]);
    if (delivery === undefined || !GITHUB_DELIVERY.test(delivery)) return { ok: false, detail: "X-GitHub-Delivery is missing or is not a delivery id (1–64 of A-Z a-z 0-9 -)" };
    const event = single(headers["x-github-event"]);
    if (event === undefined || !GITHUB_EVENT.test(event)) return { ok: false, detail: "X-GitHub-Event is missing or is not an event name (1–64 of a-z _)" };
    return { ok: true, delivery, event };
  },
};

const mastodon: SourceRule = {
  verify: (secret, raw, _text, headers) => verifyHubSignature(secret, raw, single(headers["x-hub-signature"])),
  head(_headers, raw, body) {
    const event = typeof body.event === "string" && MASTODON_EVENT.test(body.event) ? body.event : "";
    return { ok: true, delivery: createHash("sha256").update(raw).digest("hex"), event };
  },
};

/** The rule of each source; `mastodon-media` is a second Mastodon webhook with its own secret. */
export const SOURCE_RULES: Readonly<Record<HookSource, SourceRule>> = { github, mastodon, "mastodon-media": mastodon };

/** The body's `action` member when it is a short lower-case name (GitHub's `opened`), else "". */
export function actionOf(body: Record<string, unknown>): string {
  return typeof body.action === "string" && ACTION.test(body.action) ? body.action : "";
}

/** A header's single value (a repeated header is not one). */
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}
