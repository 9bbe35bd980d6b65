/**
 * @module The gateway's link to the sync worker (`DATA/run/sync.sock`, shared/protocol/sync.ts):
 * the sync routes ask through it, and each status the worker announces is kept (for
 * `/api/bootstrap` and `/api/sync/status`), shown on `/api/events` as a `sync` frame, and the home
 * node's host declared for the egress guard.
 */
import type { SyncNotices, SyncRequests, SyncStatus } from "../../../../shared/protocol/sync.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { SocketLink } from "../../../../shared/worker/socket-link.ts";

export class SyncHost {
  readonly #link: SocketLink<SyncRequests, SyncNotices>;
  #last: SyncStatus | null = null;

  constructor(deps: { readonly socketPath: string; readonly onStatus: (status: SyncStatus) => void }) {
    this.#link = new SocketLink<SyncRequests, SyncNotices>(deps.socketPath, {
      onConnect: (channel) => {
        channel.onNotice("sync-status", ({ status }) => {
          this.#last = status;
          deps.onStatus(status);
        });
        void channel.request("sync-status", {}).then(
          (status) => {
            this.#last = status;
            deps.onStatus(status);
          },
          () => {},
        );
      },
    });
    void this.#link.channel().catch(() => {});
  }

  /** The last status the sync worker announced (null: it has not been reached yet). */
  last(): SyncStatus | null {
    return this.#last;
  }

  /** Asks the sync worker; `503 unavailable` when it cannot be reached. */
  async request<K extends keyof SyncRequests & string>(type: K, body: SyncRequests[K]["request"]): Promise<SyncRequests[K]["response"]> {
    try {
      return await this.#link.request(type, body);
    } catch {
      throw new HttpProblem(problem(503, "unavailable", "the sync worker is not running (its state is on /health); try again in a moment"));
    }
  }

  close(): void {
    void this.#link.close();
  }
}
