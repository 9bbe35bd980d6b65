/** @module Entry point of the assistant worker process: the assistant's turns (it idles; see assistant.ts). */
import { runWorker } from "../../shared/worker/runtime.ts";
import { startAssistant } from "./assistant.ts";

await runWorker("assistant", startAssistant);
