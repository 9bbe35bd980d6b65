/**
 * @module How the app is built: Vite bundles `app/` (Preact, TypeScript + JSX) into
 * `workers/gateway/app-page/dist/`, which is committed and served by the gateway as it is
 * (`app/build.test.ts` fails when it is stale). No module-preload polyfill (it would be an inline
 * script, which the page's policy forbids), no asset inlined as a `data:` URL (the policy allows
 * the page's own origin only), no source maps.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export const APP_ROOT = fileURLToPath(new URL(".", import.meta.url));
export const APP_OUT = fileURLToPath(new URL("../workers/gateway/app-page/dist/", import.meta.url));

export default defineConfig({
  root: APP_ROOT,
  base: "/",
  publicDir: false,
  logLevel: "warn",
  clearScreen: false,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: APP_OUT,
    emptyOutDir: true,
    target: "es2022",
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 200,
  },
});
