// @module Lint rules for the whole project: recommended JS + TypeScript rules, no type-aware pass
// (tsc 7 does the type checking; the linter stays fast).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/**", "data/**", "**/*.generated.js", "contracts/grammar/parser.js", "test/golden/**"] },
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
);
