/**
 * @module A worker's connection to the engine channel (`DATA/run/engine.sock`) that survives the
 * engine's restarts; see SocketLink.
 */
import type { EngineNotices, EngineRequests } from "../protocol/engine.ts";
import { SocketLink } from "./socket-link.ts";

export class EngineLink extends SocketLink<EngineRequests, EngineNotices> {}
