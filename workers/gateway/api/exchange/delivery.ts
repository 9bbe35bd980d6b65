/**
 * @module Handing a signed document to another person's node: `POST {url}/exchange/inbox` with the
 * JSON body `{"jws": "<compact JWS>"}`, no redirect followed, within 10 s, and at most 64 KiB of
 * its answer read. `200` (a repeat it had) and `201` are delivered; anything else — a refusal, no
 * answer, a host the egress guard has not been told of — is a failure, with a line saying why.
 */

/** How long a delivery may take, and how much of the answer is read. */
export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;

/** What came of one attempt. */
export type DeliveryOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** The inbox URL of a node whose base URL is `base`. */
export function inboxUrl(base: string): string {
  return `${base.replace(/\/+$/, "")}/exchange/inbox`;
}

/** Posts `jws` to the inbox of the node at `base`; `signal` ends it early (the node stopping). */
export async function deliver(base: string, jws: string, signal?: AbortSignal): Promise<DeliveryOutcome> {
  const deadline = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  const url = inboxUrl(base);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ jws }),
      redirect: "error",
      signal: signal === undefined ? deadline : AbortSignal.any([signal, deadline]),
    });
  } catch (error) {
    return { ok: false, error: `${url}: ${reasonOf(error, deadline)}` };
  }
  let answer: string;
  try {
    answer = await boundedText(response);
  } catch (error) {
    return { ok: false, error: `${url} answered ${response.status}, then: ${reasonOf(error, deadline)}` };
  }
  if (response.status === 200 || response.status === 201) return { ok: true };
  return { ok: false, error: `${url} answered ${response.status}${problemLine(answer)}` };
}

/** The answer's text, at most MAX_ANSWER_BYTES of it (the rest is not read). */
async function boundedText(response: Response): Promise<string> {
  if (response.body === null) return "";
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = MAX_ANSWER_BYTES - size;
      chunks.push(Buffer.from(value.subarray(0, Math.max(0, room))));
      size += value.length;
      if (size >= MAX_ANSWER_BYTES) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** `: code — detail` of a problem document's text, or nothing. */
function problemLine(text: string): string {
  try {
    const p = JSON.parse(text) as { code?: unknown; detail?: unknown };
    if (typeof p.code !== "string") return "";
    return `: ${p.code.slice(0, 64)}${typeof p.detail === "string" ? ` — ${p.detail.slice(0, 300)}` : ""}`;
  } catch {
    return "";
  }
}

/** Why a fetch failed, in a few words (the network's own reason when there is one). */
function reasonOf(error: unknown, deadline: AbortSignal): string {
  if (deadline.aborted) return `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === "string") return typeof cause.message === "string" ? `${cause.code} (${cause.message.slice(0, 200)})` : cause.code;
  return error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300);
}
