/**
 * @module A local SMTP server for the email tests (a test double of a mail host, speaking real
 * SMTP through smtp-server): it keeps every message it takes, whole; and a header of such a message.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** A local SMTP server keeping every message it takes, whole. */
export async function smtpDouble(): Promise<{ port: number; messages: string[]; close: () => Promise<void> }> {
  const messages: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      let text = "";
      stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      stream.on("end", () => {
        messages.push(text);
        callback(null, `Ok: queued as Q${messages.length}`);
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.server.address() as AddressInfo).port, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A header's value in a raw message (folded lines joined). */
export function header(raw: string, name: string): string | null {
  const head = raw.split(/\r?\n\r?\n/)[0]?.replace(/\r?\n[ \t]+/g, " ") ?? "";
  return new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1]?.trim() ?? null;
}
