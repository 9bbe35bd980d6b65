/**
 * @module Starting `/api` for `charter node`: the gateway opens `DATA/accounts.db` (its only
 * writer; mode 0600 like the rest of the data directory), binds the account ceremonies to the
 * node's origin, makes set-up's identity step (the person's did:key, sealed under
 * `DATA/keys/account-kek`), and answers the request listener, the set-up code to print, and how
 * to close.
 */
import { getRequestListener } from "@hono/node-server";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../../shared/log.ts";
import { openDatabase } from "../../../shared/store/open.ts";
import { dataPaths } from "../../../shared/worker/config.ts";
import { AccountStore } from "./account/account-store.ts";
import { accountCeremonies } from "./account/ceremonies.ts";
import { createApiApp } from "./api-app.ts";
import { loadOrCreateKek } from "./identity/kek.ts";
import { personIdentityMaker } from "./identity/person-key.ts";
import { sealOf } from "./seal.ts";

/** What starting `/api` needs. */
export interface NodeApiOptions {
  readonly dataDir: string;
  /** The node's origin (`--origin`, or `http://localhost:PORT`). */
  readonly origin: string;
  /** The node's own did:key: its seal is shown to a signed-in person. */
  readonly nodeDid: string;
  readonly bodyLimit: number;
  readonly log: Logger;
}

/** `/api`, started. */
export interface NodeApi {
  readonly listener: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** The code that creating the account needs; null once the node is set up. */
  setupCode(): string | null;
  close(): void;
}

/** Opens the account and serves `/api` for `origin`. */
export function startNodeApi(options: NodeApiOptions): NodeApi {
  const paths = dataPaths(options.dataDir);
  const db = openDatabase(paths.accounts);
  const store = new AccountStore(db);
  const account = accountCeremonies({ store, origin: options.origin });
  const setUp = personIdentityMaker({ db, kek: () => loadOrCreateKek(paths.accountKek), now: () => Date.now() });
  const app = createApiApp({ account, origin: options.origin, seal: sealOf(options.nodeDid), setUp, log: options.log, bodyLimit: options.bodyLimit });
  return {
    listener: getRequestListener(app.fetch),
    setupCode: () => account.setupCode(),
    close: () => db.close(),
  };
}
