/**
 * @module Telling systemd the node is ready (`Type=notify`, ops/systemd/charter.service): once the
 * tree runs — the engine and the gateway up, HTTP bound — and, for `charter node`, the webhook
 * listener bound too, the supervisor runs `systemd-notify --ready` once. Node has no datagram Unix
 * sockets to send the notification itself, hence the helper and the unit's `NotifyAccess=all`;
 * since systemd 246 the helper waits until systemd has read the message, so it is not lost when the
 * helper exits first. Outside systemd (no `NOTIFY_SOCKET`) nothing is sent.
 */
import { spawn } from "node:child_process";
import type { Logger } from "../shared/log.ts";

/** How long READY waits for the webhook listener once the rest of the tree runs (its worker is not required). */
export const HOOKS_WAIT_MS = 10_000;

export interface ReadyNoticeOptions {
  /** Whether the tree has a webhook listener to wait for (`charter node`). */
  readonly hooks: boolean;
  readonly log: Logger;
  /** Sends READY=1 (absent: `systemd-notify --ready` when NOTIFY_SOCKET is set). */
  readonly send?: () => void;
}

/** Sends READY once both the tree and, if any, the webhook listener are up (or the wait for it ran out). */
export class ReadyNotice {
  readonly #options: ReadyNoticeOptions;
  #tree = false;
  #hooks: boolean;
  #sent = false;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: ReadyNoticeOptions) {
    this.#options = options;
    this.#hooks = !options.hooks;
  }

  /** The required workers run and HTTP is bound. */
  treeReady(): void {
    if (this.#tree) return;
    this.#tree = true;
    if (!this.#hooks) {
      this.#timer = setTimeout(() => {
        this.#options.log.warn("the webhook listener is not up yet; telling systemd the node is ready without it", { waitedMs: HOOKS_WAIT_MS });
        this.#hooks = true;
        this.#check();
      }, HOOKS_WAIT_MS);
      this.#timer.unref();
    }
    this.#check();
  }

  /** The webhook listener is bound. */
  hooksBound(): void {
    this.#hooks = true;
    this.#check();
  }

  /** No READY after this (the tree is shutting down). */
  cancel(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#sent = true;
  }

  #check(): void {
    if (this.#sent || !this.#tree || !this.#hooks) return;
    this.#sent = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    (this.#options.send ?? (() => systemdNotifyReady(this.#options.log)))();
  }
}

/** Runs `systemd-notify --ready` when systemd started this process with a notification socket. */
export function systemdNotifyReady(log: Logger): void {
  if (process.env.NOTIFY_SOCKET === undefined) return;
  const child = spawn("systemd-notify", ["--ready", `--status=serving`], { stdio: "ignore" });
  child.on("error", (error) => log.warn("could not tell systemd the node is ready", { error: error.message }));
  child.on("exit", (code) => {
    if (code === 0) log.info("told systemd the node is ready");
    else log.warn("systemd-notify --ready failed", { code });
  });
}
