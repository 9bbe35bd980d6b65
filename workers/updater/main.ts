/** @module Entry point of the updater worker process: the release channel (it idles; see updater.ts). */
import { runWorker } from "../../shared/worker/runtime.ts";
import { startUpdater } from "./updater.ts";

await runWorker("updater", startUpdater);
