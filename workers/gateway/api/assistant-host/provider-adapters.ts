/**
 * @module The one module of the gateway that loads the model SDKs (`openai`, `@anthropic-ai/sdk`):
 * a connection, opened, becomes its shared/models provider. Nothing imports it statically: the
 * set-up routes `import()` it and `providerOf` requires it on first use, so a gateway whose person
 * never configures a model never loads the SDKs.
 */
import { anthropicProvider } from "../../../../shared/models/anthropic.ts";
import type { CallLimits } from "../../../../shared/models/call-guard.ts";
import type { ModelProvider } from "../../../../shared/models/model.ts";
import { openAiCompatibleProvider } from "../../../../shared/models/openai-compatible.ts";
import { DEFAULT_BASE_URLS } from "./connection-rules.ts";
import type { ConnectionSecret } from "./connections.ts";

/** The provider that speaks to `secret`'s endpoint with its key. */
export function adapterFor(secret: ConnectionSecret, limits?: CallLimits): ModelProvider {
  const timing = limits === undefined ? {} : { limits };
  switch (secret.provider) {
    case "openai":
      return openAiCompatibleProvider({ baseURL: secret.baseUrl ?? DEFAULT_BASE_URLS.openai, ...(secret.key === "" ? {} : { apiKey: secret.key }), ...timing });
    case "anthropic":
      return anthropicProvider({ apiKey: secret.key, baseURL: secret.baseUrl ?? DEFAULT_BASE_URLS.anthropic, ...timing });
    default:
      throw new Error(`unknown provider: ${String(secret.provider satisfies never)}`);
  }
}
