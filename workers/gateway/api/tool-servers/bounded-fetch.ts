/**
 * @module The fetch a tool server's HTTP requests (MCP and OAuth) go through: `onUrl` hears each
 * address before it is reached (the node declares a host its authorization names, for egress),
 * and an answer's body is cut off past MAX_BODY_BYTES, so no server can fill the gateway's memory.
 */

/** The most bytes of one answer's body (an event stream's, over its whole life). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A fetch that calls `onUrl` first and bounds every answer's body. */
export function boundedFetch(onUrl: (url: string) => void, maxBytes = MAX_BODY_BYTES): typeof fetch {
  return async function fetchBounded(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    onUrl(url);
    const response = await fetch(input, init);
    if (response.body === null) return response;
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(new Error(`the server's answer ran past ${maxBytes} bytes`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  } as typeof fetch;
}
