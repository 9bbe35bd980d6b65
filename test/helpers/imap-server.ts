/**
 * @module A real IMAP server for a test: Debian's Dovecot (`dovecot-imapd`), started by the test in
 * the foreground (`dovecot -F -c CONF`) with its own configuration in a temp folder — listening on
 * 127.0.0.1 on a free port, no TLS, one passwd-file user, Maildir under the folder — and killed
 * after. Dovecot never runs its login processes as root: run as root, they run as the package's
 * `dovenull` user, its internal processes as `dovecot`, and the mail as `dovecot`'s uid (the
 * folder is given to it); run as another user, everything runs as that user. `append` adds a
 * message to the user's INBOX through IMAP itself, as a delivery would.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { ImapFlow } from "imapflow";
import { freePort } from "./ports.ts";

export const DOVECOT = "/usr/sbin/dovecot";

/** Why the IMAP tests cannot run here, or false when they can. */
export const dovecotMissing: string | false = existsSync(DOVECOT) ? false : `${DOVECOT} is not installed (apt-get install -y dovecot-imapd; .ci/run installs it)`;

export interface ImapServer {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Appends a raw message (CRLF line ends are made from LF) to the user's INBOX; its UID. */
  append(raw: string, flags?: string[]): Promise<number>;
  /** Dovecot's log so far. */
  log(): string;
  stop(): Promise<void>;
}

/** A system user's uid and gid, from /etc/passwd; null when there is none. */
function systemUser(name: string): { uid: number; gid: number } | null {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name}:`));
  if (line === undefined) return null;
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** A system group's name for `gid`, from /etc/group; the gid itself when it has none. */
function groupName(gid: number): string {
  const line = readFileSync("/etc/group", "utf8")
    .split("\n")
    .find((l) => l.split(":")[2] === String(gid));
  return line?.split(":")[0] ?? String(gid);
}

/** Starts Dovecot with user `ada` (password `secret`) and resolves once it takes connections. */
export async function startImapServer(): Promise<ImapServer> {
  const dir = mkdtempSync(join(tmpdir(), "charter-imap-"));
  // Dovecot's own processes (other users when run as root) go through this folder.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const user = "ada";
  const password = "secret";
  const me = userInfo();
  const root = me.uid === 0;
  const internal = root ? (systemUser("dovecot") === null ? null : "dovecot") : me.username;
  const login = root ? (systemUser("dovenull") === null ? "nobody" : "dovenull") : me.username;
  const mailUser = root ? (systemUser("dovecot") ?? systemUser("nobody") ?? { uid: 65534, gid: 65534 }) : { uid: me.uid, gid: me.gid };
  for (const sub of ["mail", "home"]) {
    mkdirSync(join(dir, sub));
    if (root) chownSync(join(dir, sub), mailUser.uid, mailUser.gid);
  }
  writeFileSync(join(dir, "users"), `${user}:{PLAIN}${password}::::::\n`);
  const conf = join(dir, "dovecot.conf");
  writeFileSync(
    conf,
    [
      "protocols = imap",
      "listen = 127.0.0.1",
      `base_dir = ${join(dir, "run")}`,
      `state_dir = ${join(dir, "state")}`,
      `log_path = ${join(dir, "dovecot.log")}`,
      "ssl = no",
      "disable_plaintext_auth = no",
      "auth_mechanisms = plain login",
      `mail_location = maildir:${join(dir, "mail")}/%u`,
      "first_valid_uid = 1",
      // How soon a session waiting in IDLE hears of new mail (30 s by default where inotify does not tell it).
      "mailbox_idle_check_interval = 1 secs",
      "first_valid_gid = 1",
      `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u ${join(dir, "users")}\n}`,
      `userdb {\n  driver = static\n  args = uid=${mailUser.uid} gid=${mailUser.gid} home=${join(dir, "home")}/%u\n}`,
      `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }\n  inet_listener imaps {\n    port = 0\n  }${root ? "" : "\n  chroot ="}\n}`,
      `service pop3-login {\n  inet_listener pop3 {\n    port = 0\n  }\n}`,
      ...(internal === null ? [] : [`default_internal_user = ${internal}`, `default_internal_group = ${root ? internal : groupName(me.gid)}`]),
      `default_login_user = ${login}`,
      ...(root ? [] : ["service anvil {\n  chroot =\n}"]),
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(DOVECOT, ["-F", "-c", conf], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const log = () => {
    try {
      return readFileSync(join(dir, "dovecot.log"), "utf8") + stderr;
    } catch {
      return stderr;
    }
  };
  const connect = async () => {
    const client = new ImapFlow({ host: "127.0.0.1", port, secure: false, doSTARTTLS: false, auth: { user, pass: password }, logger: false });
    client.on("error", () => {});
    await client.connect();
    return client;
  };
  // Ready once a login goes through.
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const client = await connect();
      await client.logout();
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`dovecot did not start: ${String(error)}\n${log()}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    host: "127.0.0.1",
    port,
    user,
    password,
    log,
    async append(raw, flags = []) {
      const client = await connect();
      try {
        const appended = await client.append("INBOX", raw.replace(/\r?\n/g, "\r\n"), flags);
        return appended === false ? 0 : Number(appended.uid ?? 0);
      } finally {
        await client.logout();
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
