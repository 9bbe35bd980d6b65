/** @module Entry point of the sync worker process: paired devices' history (it idles; see sync.ts). */
import { runWorker } from "../../shared/worker/runtime.ts";
import { startSync } from "./sync.ts";

await runWorker("sync", startSync);
