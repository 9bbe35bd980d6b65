/**
 * @module `npm run app:build`: builds the app into `workers/gateway/app-page/dist/` (or into the
 * folder given as the first argument, as the staleness test does).
 */
import { build } from "vite";
import { APP_OUT } from "./vite.config.ts";

const out = process.argv[2] ?? APP_OUT;
await build({ configFile: new URL("./vite.config.ts", import.meta.url).pathname, build: { outDir: out, emptyOutDir: true } });
