/** @module Reading a provider's event stream to its end in a test: the events, and the error it ended with. */
import { ModelError, type ModelEvent } from "../../../shared/models/model.ts";

/** Every event of `events`, and the `ModelError` it ended with, if any (anything else is rethrown). */
export async function drain(events: AsyncIterable<ModelEvent>): Promise<{ events: ModelEvent[]; error?: ModelError }> {
  const seen: ModelEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { events: seen };
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    return { events: seen, error };
  }
}

/** The `ModelError` that `events` ends with; fails the test when it completes. */
export async function failureOf(events: AsyncIterable<ModelEvent>): Promise<ModelError> {
  const { error, events: seen } = await drain(events);
  if (!error) throw new Error(`expected a failure, the stream completed with ${JSON.stringify(seen)}`);
  return error;
}

/** The text of `events` joined. */
export function textOf(events: ModelEvent[]): string {
  return events.map((event) => (event.type === "text" ? event.delta : "")).join("");
}
