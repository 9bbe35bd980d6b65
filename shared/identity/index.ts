/**
 * @module The identity and signature layer: did:key identities, key files, compact EdDSA JWS on
 * libsodium, and the signed wire objects built on it (commands, receipts, installs, bearer tokens).
 * Import from here; the files behind it are one concept each.
 */
export { base58Decode, base58Encode } from "./base58.ts";
export { base64urlDecode, base64urlEncode } from "./base64url.ts";
export { bearerAudience, BEARER_CLOCK_SKEW_S, BEARER_MAX_LIFETIME_S, signBearer, verifyBearer } from "./bearer.ts";
export { COMMAND_TYP, parseCommand, signCommand, type CommandPath, type CommandPayload, type VerifiedCommand } from "./command.ts";
export { didKeyFromPublicKey, isDidKey, publicKeyFromDidKey, type DidKeyError, type DidKeyErrorCode } from "./did-key.ts";
export { MAX_ISSUED_AT_SKEW_MS } from "./envelope.ts";
export { INSTALL_ID_PATTERN, INSTALL_TYP, newInstallId, parseInstall, signInstall, type InstallPayload, type VerifiedInstall } from "./install.ts";
export { signJws, verifyJws, type JwsError, type JwsErrorCode, type JwsHeader, type JwsHeaderInput, type VerifiedJws } from "./jws.ts";
export { loadKeyFile, loadOrCreateNodeKey, NODE_KEY_FILE, saveKeyFile, type KeyFileError } from "./key-file.ts";
export { fromPrivateJwk, generateKeyPair, keyPairFromSeed, toPrivateJwk, toPublicJwk, type JwkError, type KeyPair, type PrivateJwk, type PublicJwk } from "./key-pair.ts";
export { problem, type FieldProblem, type Problem, type ProblemCode } from "./problem.ts";
export { RECEIPT_TYP, receiptJsonOf, receiptOf, signReceipt, verifyReceipt, type Receipt, type ReceiptError, type RefusalCode, type RefusalReason } from "./receipt.ts";
export type { Result } from "../result.ts";
export { parseRfc3339 } from "./rfc3339.ts";
