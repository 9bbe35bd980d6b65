/** @module Entry point of the outbox worker process: connectors and their effects (it idles; see outbox.ts). */
import { runWorker } from "../../shared/worker/runtime.ts";
import { startOutbox } from "./outbox.ts";

await runWorker("outbox", startOutbox);
