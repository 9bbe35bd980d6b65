/** @module Entry point of the engine worker process: the only writer of the store. */
import { runWorker } from "../../shared/worker/runtime.ts";
import { startEngine } from "./engine.ts";

await runWorker("engine", startEngine);
