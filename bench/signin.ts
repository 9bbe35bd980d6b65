/**
 * @module Benchmark of the account's hot paths, on a file store (WAL, synchronous=FULL, as
 * `openDatabase` opens it). Sign-in finish p50/p95 — take the challenge, check the assertion,
 * record the passkey's use, start a session — against the bare `verifyAuthenticationResponse` of
 * @simplewebauthn/server on the same responses; and the session check every `/api` request makes,
 * per call, against a bare Map lookup and a SHA-256 plus Map lookup; and that check's CPU on a whole
 * `/api` read, against the same route with the session already in hand. Targets: finish p50 < 10 ms,
 * session check < 50 µs of CPU per request. Run alone: `node bench/signin.ts [sign-ins, default 300]` under Node 24.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyAuthenticationResponse } from "@simplewebauthn/server";
import { ManualClock } from "../shared/clock.ts";
import { ok } from "../shared/result.ts";
import { openDatabase } from "../shared/store/open.ts";
import { SoftAuthenticator } from "../test/helpers/soft-authenticator.ts";
import { AccountStore } from "../workers/gateway/api/account/account-store.ts";
import { accountCeremonies } from "../workers/gateway/api/account/ceremonies.ts";
import { checkSession, SESSION_COOKIE, startSession } from "../workers/gateway/api/account/sessions.ts";
import type { SessionRecord } from "../workers/gateway/api/account/account-store.ts";
import { createApiApp } from "../workers/gateway/api/api-app.ts";
import { PersonReader } from "../workers/gateway/api/personal/person-reader.ts";
import { StoreView } from "../workers/gateway/reads/store-view.ts";
import { PersonWriter } from "../workers/gateway/api/personal/person-writer.ts";
import { createLogger } from "../shared/log.ts";
import { percentile, report } from "./lib.ts";

const SIGN_INS = Number(process.argv[2] ?? "300");
const WARM_UP = 30;
const SESSIONS = 1_000;
const CHECKS = 200_000;
const ORIGIN = "https://home.example.org";

const dir = mkdtempSync(join(tmpdir(), "charter-bench-signin-"));
try {
  const db = openDatabase(join(dir, "accounts.db"));
  const store = new AccountStore(db);
  const clock = new ManualClock(Date.now());
  const account = accountCeremonies({ store, origin: ORIGIN, clock });
  const auth = new SoftAuthenticator();

  const must = <T>(r: { ok: true; value: T } | { ok: false; error: { code: string } }): T => {
    if (!r.ok) throw new Error(`bench setup: ${r.error.code}`);
    return r.value;
  };
  const begun = must(await account.createBegin({ firstName: "Ada", setupCode: account.setupCode() }));
  const { ticket } = must(await account.createRegister({ response: auth.create(begun.options, ORIGIN) }));
  must(await account.createFinish({ ticket }, "bench", async () => ok({ did: "did:key:z6MkBench", tenant: "ada" })));

  // Sign-in finish against the bare library check, on the same responses.
  const ours: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < WARM_UP + SIGN_INS; i++) {
    const { options } = must(await account.signInBegin());
    const response = auth.get(options, ORIGIN);
    const passkey = store.passkey(response.id);
    if (passkey === null) throw new Error("bench setup: no passkey");
    let t = performance.now();
    const v = await verifyAuthenticationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: ORIGIN,
      expectedRPID: "home.example.org",
      credential: { id: passkey.id, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: [...passkey.transports] },
      requireUserVerification: true,
    });
    const bareMs = performance.now() - t;
    if (!v.verified) throw new Error("bench: bare verification failed");
    t = performance.now();
    must(await account.signInFinish({ response }, "bench"));
    const oursMs = performance.now() - t;
    if (i >= WARM_UP) {
      bare.push(bareMs);
      ours.push(oursMs);
    }
  }
  ours.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  report("signin.finish_p50_ms", percentile(ours, 50), "ms", { label: "bare verifyAuthenticationResponse", value: percentile(bare, 50), higherIsBetter: false, target: "< 10 ms" });
  report("signin.finish_p95_ms", percentile(ours, 95), "ms", { label: "bare verifyAuthenticationResponse", value: percentile(bare, 95), higherIsBetter: false });

  // The session check: one indexed lookup by token hash, no write within a minute of the last.
  const tokens: string[] = [];
  const byToken = new Map<string, object>();
  const byHash = new Map<string, object>();
  for (let i = 0; i < SESSIONS; i++) {
    const { token, session } = startSession(store, "full", "bench", clock.now(), (n) => crypto.getRandomValues(new Uint8Array(n)));
    tokens.push(token);
    byToken.set(token, session);
    byHash.set(createHash("sha256").update(token).digest("hex"), session);
  }
  const now = clock.now() + 1_000;
  const perCall = (op: (i: number) => unknown): number => {
    for (let i = 0; i < 10_000; i++) op(i);
    const t = performance.now();
    for (let i = 0; i < CHECKS; i++) op(i);
    return ((performance.now() - t) * 1000) / CHECKS;
  };
  const token = (i: number) => tokens[i % SESSIONS] as string;
  const checkUs = perCall((i) => checkSession(store, token(i), now) ?? process.exit(1));
  const mapUs = perCall((i) => byToken.get(token(i)) ?? process.exit(1));
  const hashMapUs = perCall((i) => byHash.get(createHash("sha256").update(token(i)).digest("hex")) ?? process.exit(1));
  report("signin.check_session_us", checkUs, "µs", { label: "bare Map lookup", value: mapUs, higherIsBetter: false, target: "< 50 µs" });
  report("signin.check_session_us", checkUs, "µs", { label: "sha256 + Map lookup", value: hashMapUs, higherIsBetter: false });

  // The once-a-minute check that also writes lastSeenAt (one UPDATE, one commit).
  const touches: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    if (checkSession(store, token(i), now + 60_000 * (i + 1)) === null) throw new Error("bench: session refused");
    touches.push((performance.now() - t) * 1000);
  }
  touches.sort((a, b) => a - b);
  report("signin.check_session_touch_p50_us", percentile(touches, 50), "µs");

  // The check's share of an `/api` read: CPU per `GET /api/account` through the whole `/api` app
  // (gate, answer log, route), with the session looked up from the cookie, against the same app
  // whose lookup answers a session already in hand. Rounds alternate, so drift hits both.
  const fixed = checkSession(store, token(0), now + 60_000 * 300);
  if (fixed === null) throw new Error("bench: session refused");
  const apiApp = (lookup: (t: string | null | undefined) => SessionRecord | null) =>
    createApiApp({
      account: { ...account, session: lookup },
      origin: ORIGIN,
      seal: "BENCH",
      setUp: async () => ok({ did: "did:key:z6MkBench", tenant: "ada" }),
      log: createLogger("bench", () => {}),
      bodyLimit: 1 << 20,
      writer: new PersonWriter({ engine: {} as never, now: () => clock.now(), personKey: () => null, personalTenant: () => null }),
      admin: { request: () => Promise.reject(new Error("unused")) },
      version: "bench",
      person: () => ({ did: null, tenant: null }),
      lastSeq: () => 0,
      reader: new PersonReader({ store: new StoreView(":memory:"), personDid: () => null, personalTenant: () => null, now: () => clock.now() }),
      now: () => clock.now(),
    });
  clock.advance(now + 60_000 * 300 - clock.now());
  const checked = apiApp(account.session);
  const unchecked = apiApp(() => fixed);
  const cookie = `${SESSION_COOKIE}=${token(0)}`;
  const cpuPerRequest = async (app: ReturnType<typeof apiApp>, n: number): Promise<number> => {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const res = await app.request("/api/account", { headers: { cookie } });
      if (res.status !== 200) throw new Error(`bench: /api/account answered ${res.status}`);
      await res.arrayBuffer();
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  await cpuPerRequest(checked, 2_000);
  await cpuPerRequest(unchecked, 2_000);
  const withCheck: number[] = [];
  const without: number[] = [];
  for (let round = 0; round < 6; round++) {
    withCheck.push(await cpuPerRequest(checked, 5_000));
    without.push(await cpuPerRequest(unchecked, 5_000));
  }
  withCheck.sort((a, b) => a - b);
  without.sort((a, b) => a - b);
  const medianWith = percentile(withCheck, 50);
  const medianWithout = percentile(without, 50);
  report("signin.api_read_cpu_us", medianWith, "µs", { label: "same route, session in hand", value: medianWithout, higherIsBetter: false });
  report("signin.api_session_check_overhead_us", medianWith - medianWithout, "µs", { label: "target", value: 50, higherIsBetter: false, target: "< 50 µs of CPU per request" });
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
