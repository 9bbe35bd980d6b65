// @module Lint rules for the whole project: recommended JS + TypeScript rules, no type-aware pass
// (tsc 7 does the type checking; the linter stays fast).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

/** Every worker's folder under workers/: each is its own process, and none imports another. */
const WORKERS = ["engine", "gateway", "assistant", "outbox", "sync", "updater"];
const ENGINE = apartFrom("engine");
const CONTRACTS = ["(^|/)(workers|cli|tui|supervisor|ops|bin)/|(^|/)shared/(protocol|store|channel|worker)/", "the language (contracts/) imports no worker, process or store code"];

export default tseslint.config(
  { ignores: ["node_modules/**", "data/**", "**/*.generated.js", "contracts/grammar/parser.js", "test/golden/**", "workers/gateway/app-page/dist/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", setImmediate: "readonly", URL: "readonly", TextEncoder: "readonly", TextDecoder: "readonly", WebAssembly: "readonly", performance: "readonly", structuredClone: "readonly", AbortController: "readonly", fetch: "readonly", Response: "readonly", Request: "readonly", Headers: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/consistent-type-imports": "error",
      "no-constant-condition": ["error", { checkLoops: false }],
    },
  },
  // The app (app/): browser code, bundled by Vite; it talks to the node over /api only.
  { files: ["app/**/*.{ts,tsx}"], ignores: ["app/vite.config.ts", "app/build.ts", "app/**/*.test.ts"], languageOptions: { globals: globals.browser } },
  layer(["app/**"], "(^|/)(workers|cli|tui|supervisor|ops|bin|shared|contracts)/", "the app is a page: it reaches the node over /api, never by importing its code"),
  // The layers. Tests may reach across (they assemble whole trees); code may not.
  ...WORKERS.map((worker) => layer([`workers/${worker}/**`], ...apartFrom(worker))),
  layer(["shared/**"], "(^|/)(workers|cli|tui|supervisor|ops|bin)/", "shared/ is below the workers, the CLI, the console and the supervisor: it imports none of them"),
  layer(["contracts/**"], ...CONTRACTS),
  layer(["cli/**", "tui/**", "supervisor/**", "ops/**"], "(^|/)workers/(?!engine/offline-admin\\.ts$)", "the CLI, the console and the supervisor talk to the workers over their sockets; the one way in is workers/engine/offline-admin.ts"),
  // The Raft core and the contract runtime are deterministic: time, randomness and I/O come in as arguments.
  deterministic(["workers/engine/raft/**/*.ts"], ENGINE),
  deterministic(["contracts/runtime/**/*.ts", "contracts/interpreter/**/*.ts"], CONTRACTS),
);

/** The import rule of the worker `worker`: no path into another worker's folder. */
function apartFrom(worker) {
  const others = WORKERS.filter((w) => w !== worker).join("|");
  return [`(^|/)(${others})/`, "a worker never imports another worker: share it through shared/ or contracts/"];
}

/** Code in `files` (tests excepted) may not import a path matching `regex`. */
function layer(files, regex, message) {
  return { files, ignores: ["**/*.test.ts"], rules: { "no-restricted-imports": ["error", { patterns: [{ regex, message }] }] } };
}

/** Deterministic code in `files` (tests excepted): its layer's rule, and no node:* module, clock or unseeded random. */
function deterministic(files, [regex, message]) {
  return {
    files,
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex, message }, { regex: "^node:", message: "deterministic code: no node:* module (pass what it needs in)" }] }],
      "no-restricted-globals": ["error", { name: "Date", message: "deterministic code: take the time as an argument" }, { name: "performance", message: "deterministic code: take the time as an argument" }],
      "no-restricted-properties": ["error", { object: "Math", property: "random", message: "deterministic code: take a seeded random as an argument" }],
    },
  };
}
