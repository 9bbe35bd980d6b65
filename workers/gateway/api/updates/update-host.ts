/**
 * @module The gateway's link to the updater worker (`DATA/run/updater.sock`,
 * shared/protocol/updater.ts): the person's update routes ask through it, and each status the
 * updater announces is kept (for `/api/bootstrap`), shown on `/api/events` as an `update` frame,
 * and its channel's host declared for the egress guard.
 */
import type { UpdateEvent } from "../../../../shared/update/update-state.ts";
import type { UpdaterNotices, UpdaterRequests, UpdateStatus } from "../../../../shared/protocol/updater.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { SocketLink } from "../../../../shared/worker/socket-link.ts";

export interface UpdateHostDeps {
  readonly socketPath: string;
  /** Each status the updater announces (on connect, and on every change). */
  readonly onStatus: (status: UpdateStatus, event: UpdateEvent | null) => void;
}

export class UpdateHost {
  readonly #link: SocketLink<UpdaterRequests, UpdaterNotices>;
  #last: UpdateStatus | null = null;

  constructor(deps: UpdateHostDeps) {
    this.#link = new SocketLink<UpdaterRequests, UpdaterNotices>(deps.socketPath, {
      onConnect: (channel) => {
        channel.onNotice("update-status", ({ status, event }) => {
          this.#last = status;
          deps.onStatus(status, event);
        });
        void channel.request("update-status", {}).then(
          (status) => {
            this.#last = status;
            deps.onStatus(status, null);
          },
          () => {},
        );
      },
    });
    void this.#link.channel().catch(() => {});
  }

  /** The last status the updater announced (null: it has not been reached yet). */
  last(): UpdateStatus | null {
    return this.#last;
  }

  /** Asks the updater; `503 unavailable` when it cannot be reached. */
  async request<K extends keyof UpdaterRequests & string>(type: K, body: UpdaterRequests[K]["request"]): Promise<UpdaterRequests[K]["response"]> {
    try {
      return await this.#link.request(type, body);
    } catch {
      throw new HttpProblem(problem(503, "unavailable", "the updater worker is not running (its state is on /health); try again in a moment"));
    }
  }

  close(): void {
    void this.#link.close();
  }
}
