/**
 * @module Passkeys are the browser's own: the node's options (JSON) are parsed by
 * `PublicKeyCredential.parse…OptionsFromJSON`, and the credential goes back as its `toJSON()`.
 */
import { api } from "./api.ts";

/** A new passkey for the node's creation options; answers the credential as JSON. */
export async function createPasskey(options: unknown): Promise<unknown> {
  const credential = (await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options as PublicKeyCredentialCreationOptionsJSON) })) as PublicKeyCredential | null;
  if (credential === null) throw new Error("no passkey was made");
  return credential.toJSON();
}

/** An assertion by one of the node's passkeys for its request options; answers it as JSON. */
export async function usePasskey(options: unknown): Promise<unknown> {
  const credential = (await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options as PublicKeyCredentialRequestOptionsJSON) })) as PublicKeyCredential | null;
  if (credential === null) throw new Error("no passkey was used");
  return credential.toJSON();
}

/** Steps this session up with a passkey; answers until when (RFC 3339). */
export async function stepUpNow(): Promise<string> {
  const begin = await api<{ options: unknown }>("POST", "/api/account/stepup/begin", {});
  const response = await usePasskey(begin.options);
  const { until } = await api<{ until: string }>("POST", "/api/account/stepup/finish", { response });
  return until;
}
