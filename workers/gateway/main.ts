/** @module Entry point of the gateway worker process: HTTP for /health, /v1 and /api. */
import { runWorker } from "../../shared/worker/runtime.ts";
import { startGateway } from "./gateway.ts";

await runWorker("gateway", startGateway);
