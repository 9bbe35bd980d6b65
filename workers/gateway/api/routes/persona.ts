/**
 * @module The assistant's persona for this person, the one `std.persona` record (subject
 * `persona`) of the personal tenant:
 *
 * ```
 * GET /api/persona                                   → {constitution, sensitiveInstructions, contentMode, updatedAt?, updatedBy?}
 * PUT /api/persona {constitution?, sensitiveInstructions?} → 200 the persona and {receipts: [...]}
 * PUT /api/content-mode {mode}                       → 200 the persona and {receipt, jws}
 * ```
 *
 * Before any write the answer is the contract's defaults (no `updatedAt`). A field of `PUT
 * /api/persona` that differs from the stored one is a change, signed as its own action
 * (`SetConstitution`, then `SetSensitiveInstructions`), so history shows which part changed; a
 * field equal to the stored value writes nothing. Changing the sensitive instructions needs a
 * step-up, checked before anything is written (`403 step-up-required`, not even the constitution
 * of the same request is written). A refusal (`text_too_long` over 8,000 characters) is `422
 * refused` with its receipt, and no other change of the request is written (`signedWrites`).
 */
import type { Hono } from "hono";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import { FieldCheck } from "./field-check.ts";
import { committedAt } from "./kept-records.ts";
import { signedWrite, signedWrites } from "../personal/signed-write.ts";

const NAMESPACE = "std.persona";
const AGGREGATE = "Persona";
const SUBJECT = "persona";
/** The body field each action argument comes from, where their names differ. */
const BODY_FIELDS = { sensitive_instructions: "sensitiveInstructions" };

/** The persona as the routes answer it. */
export interface PersonaView {
  readonly constitution: string;
  readonly sensitiveInstructions: string;
  readonly contentMode: string;
  readonly updatedAt?: string;
  readonly updatedBy?: string;
}

/** What the persona routes need: the person's reads and writes, and the ceremonies' step-up state. */
export interface PersonaRouteDeps {
  readonly writer: PersonWriter;
  readonly reader: PersonReader;
  readonly account: Pick<AccountCeremonies, "context">;
}

/** Mounts the persona and content-mode routes. */
export function mountPersonaRoutes(api: Hono<ApiEnv>, deps: PersonaRouteDeps): void {
  const { reader, writer } = deps;

  api.get("/api/persona", (c) => {
    sessionOf(c);
    return c.json(personaOf(reader));
  });

  api.put("/api/persona", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["constitution", "sensitiveInstructions"]);
    const check = new FieldCheck();
    const constitution = check.text(body.constitution, "constitution", false);
    const sensitive = check.text(body.sensitiveInstructions, "sensitiveInstructions", false);
    check.done();
    const current = personaOf(reader);
    const changes: { action: string; args: Record<string, string> }[] = [];
    if (constitution !== undefined && constitution !== current.constitution) changes.push({ action: "SetConstitution", args: { constitution } });
    if (sensitive !== undefined && sensitive !== current.sensitiveInstructions) {
      requireSteppedUp(c, deps.account);
      changes.push({ action: "SetSensitiveInstructions", args: { sensitive_instructions: sensitive } });
    }
    const signed = await signedWrites(
      writer,
      changes.map((change) => ({ namespace: NAMESPACE, subject: SUBJECT, ...change })),
      BODY_FIELDS,
    );
    return c.json({ ...personaOf(reader), receipts: signed.map((s) => s.receipt) });
  });

  api.put("/api/content-mode", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["mode"]);
    const check = new FieldCheck();
    const mode = check.text(body.mode, "mode", true);
    check.done();
    const signed = await signedWrite(writer, { namespace: NAMESPACE, action: "SetContentMode", subject: SUBJECT, args: { mode } });
    return c.json({ ...personaOf(reader), receipt: signed.receipt, jws: signed.jws });
  });
}

/** The stored persona, or the contract's defaults before its first write. */
function personaOf(reader: PersonReader): PersonaView {
  const stored = reader.record(undefined, NAMESPACE, AGGREGATE, SUBJECT);
  if (stored === null) {
    const fields = reader.read(undefined, (r) => r.contract(NAMESPACE).schema.aggregates[AGGREGATE]?.fields ?? []);
    const defaults = Object.fromEntries(fields.map((f) => [f.name, f.default]));
    return view(defaults);
  }
  const updatedAt = committedAt(reader, NAMESPACE, AGGREGATE, SUBJECT, stored.seq);
  return { ...view(stored.state), ...(updatedAt === null ? {} : { updatedAt }) };
}

function view(state: Record<string, unknown>): PersonaView {
  return {
    constitution: String(state.constitution ?? ""),
    sensitiveInstructions: String(state.sensitive_instructions ?? ""),
    contentMode: String(state.content_mode),
    ...(typeof state.updated_by === "string" ? { updatedBy: state.updated_by } : {}),
  };
}
