/** @module The no-op connector: its one effect completes at once and reaches nothing (the outbox's own check and benchmark). */
import type { Connector } from "./connector.ts";

export const noopConnector: Connector = {
  needsAccount: false,
  perform: () => Promise.resolve({ providerId: null }),
};
