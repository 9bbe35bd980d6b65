/**
 * @module The sender allow-list: mail from an address on it goes to the inbox; mail from any other
 * is held (recorded, counted, shown only as held, never given to the assistant). Allowing an
 * address records `Allow` and then lets out the mail of it that is held — each message released
 * and its thread shown and moved on — in pages, at most `MAX_RELEASED` a call (what is left is let
 * out by the next allow). Recording mail looks at the list again after it recorded a message held
 * (mail-consumer.ts), so a message recorded while an address is being allowed is never left held.
 */
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { COMMS, findMessage, senderSubject } from "./comms-records.ts";
import { commsAct } from "./comms-writes.ts";

/** The most held messages one allow lets out. */
export const MAX_RELEASED = 1000;
const PAGE = 200;

/** Puts `address` on the allow-list and lets its held mail out; answers how many messages it released. */
export async function allowAddress(deps: { readonly reader: PersonReader; readonly writer: PersonWriter }, address: string, name: string): Promise<number> {
  const lower = address.toLowerCase();
  const answer = await commsAct(deps.writer, { action: "Allow", subject: senderSubject(lower), args: { address: lower, name: name.slice(0, 200) } });
  if (answer !== "accepted") throw new Error(`std.comms refused Allow for ${lower.slice(0, 100)}`);
  let released = 0;
  while (released < MAX_RELEASED) {
    const { rows } = deps.reader.query(undefined, COMMS, "HeldFrom", { address: lower, limit: Math.min(PAGE, MAX_RELEASED - released) });
    if (rows.length === 0) break;
    for (const row of rows) {
      await releaseMessage(deps.writer, deps.reader, String(row.id));
      released++;
    }
  }
  return released;
}

/** Lets one held message out: released, its thread shown and moved on when the message is its newest. */
export async function releaseMessage(writer: PersonWriter, reader: PersonReader, subject: string, key?: string): Promise<void> {
  const keyed = (step: string) => (key === undefined ? {} : { idempotencyKey: `${key}:${step}` });
  await commsAct(writer, { action: "Release", subject, args: {}, ...keyed("message") });
  const message = findMessage(reader, subject);
  if (message === null) return;
  const thread = reader.record(undefined, COMMS, "Thread", message.thread);
  if (thread === null) return;
  const at = Date.parse(message.date ?? "") || 0;
  if (at >= Number(thread.state.last_at)) {
    await commsAct(writer, { action: "Touch", subject: message.thread, args: { at, from_address: message.from.address, from_name: message.from.name, snippet: message.snippet }, ...keyed("touch") });
  }
  if (thread.state.held === true) await commsAct(writer, { action: "Show", subject: message.thread, args: {}, ...keyed("show") });
}
