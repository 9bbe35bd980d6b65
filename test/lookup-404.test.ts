/**
 * Issue 16, the read side, against a real tree. Finding 16: a caller who is not an owner or member
 * of a tenant gets byte-identical answers whether the tenant, the namespace or the query (or
 * aggregate) is missing, on every read route, so it cannot list tenants or what they installed;
 * owners and members still get the precise words, and a public query still needs no token.
 * Finding 3: GraphQL documents whose fragments double thirty times, or spread themselves, are
 * refused while the node goes on answering.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { generateKeyPair, type KeyPair, signBearer } from "../shared/identity/index.ts";
import { type Charter, cleanup, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { example, seed } from "./helpers/seed.ts";

const NS = "acme.inventory";
const UNIFORM = "no such tenant, namespace, query or action for this caller";
const stranger = generateKeyPair();

let c: Charter;
let member: KeyPair;

before(async () => {
  const dataDir = tempDataDir();
  const seeded = await seed(dataDir, { contracts: [example("inventory.charter.md")] });
  member = seeded.members[0] as KeyPair;
  c = await startCharter({ dataDir });
});
after(async () => {
  await stopCharter(c);
  cleanup(c.dataDir);
});

interface Raw {
  readonly status: number;
  readonly type: string | null;
  readonly text: string;
}

/** Who asks: nobody, someone who sends a token the node cannot verify, a stranger, a member. */
type Who = "anonymous" | "garbage" | "stranger" | "member";

function authorization(who: Who, tenant: string, namespace: string): Record<string, string> {
  if (who === "anonymous") return {};
  if (who === "garbage") return { authorization: "Bearer not.a.jwt" };
  const key = who === "stranger" ? stranger : member;
  return { authorization: `Bearer ${signBearer(key, { tenant, namespace, now: Date.now() })}` };
}

async function raw(path: string, init: RequestInit): Promise<Raw> {
  const r = await fetch(`${c.url}${path}`, init);
  return { status: r.status, type: r.headers.get("content-type"), text: await r.text() };
}

/** The answer as compared: the body without an `instance` member (none today; a per-request one would differ). */
function comparable(r: Raw): Raw {
  const body = JSON.parse(r.text) as Record<string, unknown>;
  delete body.instance;
  return { ...r, text: JSON.stringify(body) };
}

const query = (tenant: string, namespace: string, name: string, who: Who) =>
  raw(`/v1/${tenant}/${namespace}/queries/${name}`, { method: "POST", headers: { "content-type": "application/json", ...authorization(who, tenant, namespace) }, body: JSON.stringify({ params: {} }) });
const graphql = (tenant: string, namespace: string, document: string, who: Who) =>
  raw(`/v1/${tenant}/${namespace}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...authorization(who, tenant, namespace) }, body: JSON.stringify({ query: document }) });
const record = (tenant: string, namespace: string, aggregate: string, suffix: string, who: Who) =>
  raw(`/v1/${tenant}/${namespace}/records/${aggregate}/i-1${suffix}`, { headers: authorization(who, tenant, namespace) });

/** The three things that can be missing, and one that is there, as (tenant, namespace, query or aggregate). */
const MISSING_TENANT = ["nobody", NS] as const;
const MISSING_NAMESPACE = ["acme", "acme.nothing"] as const;

describe("issue 16 #16: lookups tell a stranger nothing", () => {
  test("issue 16 #16: queries answer one identical 404 for a missing tenant, namespace or query to anyone who is not a member", async () => {
    for (const who of ["anonymous", "garbage", "stranger"] as const) {
      const answers = [
        await query(...MISSING_TENANT, "PriceList", who),
        await query(...MISSING_NAMESPACE, "PriceList", who),
        await query("acme", NS, "Nope", who),
        // An internal query is not served: it is as missing as one never declared.
        await query("acme", NS, "Valuation", who),
      ].map(comparable);
      for (const a of answers) assert.deepEqual(a, answers[0], who);
      assert.equal(answers[0]?.status, 404);
      assert.equal(answers[0]?.type, "application/problem+json");
      assert.deepEqual(JSON.parse(answers[0]?.text ?? ""), { type: "urn:charter:problem:not-found", title: "Not Found", status: 404, detail: UNIFORM, code: "not-found" });
    }
  });

  test("issue 16 #16: members still learn which part is missing", async () => {
    const details = await Promise.all([query(...MISSING_TENANT, "PriceList", "member"), query(...MISSING_NAMESPACE, "PriceList", "member"), query("acme", NS, "Nope", "member")]);
    // Not a member of 'nobody': the uniform answer; of acme: the precise ones.
    assert.deepEqual(details.map((d) => [d.status, JSON.parse(d.text).detail]), [
      [404, UNIFORM],
      [404, "tenant 'acme' has no contract installed for acme.nothing"],
      [404, "acme.inventory has no query 'Nope' served by the API"],
    ]);
  });

  test("issue 16 #16: a public query still answers without credentials, an authenticated one still asks for them", async () => {
    const open = await query("acme", NS, "Nothing", "anonymous");
    assert.equal(open.status, 200, open.text);
    assert.deepEqual(JSON.parse(open.text).rows, []);
    assert.equal((await query("acme", NS, "AddedBy", "anonymous")).status, 401);
    assert.equal((await query("acme", NS, "AddedBy", "stranger")).status, 403);
  });

  test("issue 16 #16: GraphQL answers one identical 404 for a missing tenant or namespace to anyone who is not a member", async () => {
    for (const who of ["anonymous", "garbage", "stranger"] as const) {
      const answers = [await graphql(...MISSING_TENANT, "{ _contract { namespace } }", who), await graphql(...MISSING_NAMESPACE, "{ _contract { namespace } }", who)];
      assert.deepEqual(answers[1], answers[0], who);
      assert.equal(answers[0]?.status, 404);
      assert.deepEqual(JSON.parse(answers[0]?.text ?? "").errors, [{ message: UNIFORM, extensions: { code: "not-found", status: 404 } }]);
    }
    // A query GraphQL does not have is a validation error once the namespace exists, as before;
    // the namespace's schema is public (introspection, openapi.json) so this tells nothing new.
    assert.equal((await graphql("acme", NS, "{ Nope }", "anonymous")).status, 400);
    const precise = await graphql(...MISSING_NAMESPACE, "{ _contract { namespace } }", "member");
    assert.equal(JSON.parse(precise.text).errors[0].message, "tenant 'acme' has no contract installed for acme.nothing");
  });

  test("issue 16 #16: records and history ask who is asking first, so strangers get one answer whatever exists", async () => {
    // The answers echo the tenant and namespace the caller sent (the token's expected audience); nothing else differs.
    const echo = (r: Raw, tenant: string, namespace: string) => ({ ...r, text: r.text.replaceAll(`${tenant}/${namespace}`, "T/N").replaceAll(`'${tenant}'`, "'T'") });
    for (const suffix of ["", "/history"]) {
      for (const [who, status] of [["anonymous", 401], ["garbage", 401], ["stranger", 403]] as const) {
        const answers = [
          echo(await record(...MISSING_TENANT, "Item", suffix, who), ...MISSING_TENANT),
          echo(await record(...MISSING_NAMESPACE, "Item", suffix, who), ...MISSING_NAMESPACE),
          echo(await record("acme", NS, "Nope", suffix, who), "acme", NS),
          echo(await record("acme", NS, "Item", suffix, who), "acme", NS),
        ].map(comparable);
        for (const a of answers) assert.deepEqual(a, answers[0], `${who} ${suffix}`);
        assert.equal(answers[0]?.status, status, answers[0]?.text);
      }
    }
    // A member learns what is missing.
    assert.match(JSON.parse((await record(...MISSING_NAMESPACE, "Item", "", "member")).text).detail, /has no contract installed for acme\.nothing/);
    assert.match(JSON.parse((await record("acme", NS, "Nope", "", "member")).text).detail, /has no aggregate 'Nope'/);
  });
});

describe("issue 16 #3: GraphQL fragments cannot make the node work without bound", () => {
  /** `query Q { ...F0 }`, each fragment spreading the next twice; the last spreads `last`. */
  function doubling(levels: number, last: string): string {
    let source = "query Q { ...F0 }";
    for (let i = 0; i < levels; i++) source += ` fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`;
    return `${source} fragment F${levels} on Query { ${last} }`;
  }

  test("issue 16 #3: thirty levels of fragment doubling are refused for their cost while /health answers", { timeout: 20_000 }, async () => {
    const [refused, health] = await Promise.all([graphql("acme", NS, doubling(30, "_contract { namespace }"), "anonymous"), raw("/health", {})]);
    assert.equal(health.status, 200);
    assert.equal(refused.status, 400, refused.text);
    const errors = JSON.parse(refused.text).errors as { message: string; extensions: { code: string } }[];
    assert.deepEqual(errors.map((e) => e.extensions.code), ["QUERY_TOO_COSTLY"]);
    assert.match(errors[0]?.message ?? "", /costs 2147483648, more than the limit of 5000/);
  });

  test("issue 16 #3: fragment cycles and unknown fragments are a 400 GraphQL error", { timeout: 20_000 }, async () => {
    for (const [document, message] of [
      [doubling(30, "...F0"), /Cannot spread fragment "F0" within itself via "F1"/],
      ["query Q { ...A } fragment A on Query { ...A }", /Cannot spread fragment "A" within itself\./],
      ["query Q { ...Nope }", /Unknown fragment "Nope"/],
    ] as const) {
      const r = await graphql("acme", NS, document, "anonymous");
      assert.equal(r.status, 400, r.text);
      const errors = JSON.parse(r.text).errors as { message: string; extensions: { code: string } }[];
      assert.deepEqual(errors.map((e) => e.extensions.code), ["GRAPHQL_VALIDATION_FAILED"]);
      assert.match(errors[0]?.message ?? "", message);
    }
  });

  test("issue 16 #3: brackets nested thousands deep are refused, not a stack overflow", { timeout: 20_000 }, async () => {
    const r = await graphql("acme", NS, `{ ${"_contract { ".repeat(2400)}namespace${" }".repeat(2400)} }`, "anonymous");
    assert.equal(r.status, 400, r.text);
    assert.equal(JSON.parse(r.text).errors[0].extensions.code, "QUERY_TOO_DEEP");
  });
});
