/**
 * @module `npm run grammar`: regenerate `parser.js` from `charter.peggy`. The output is committed so
 * nothing at run time depends on peggy.
 */
import { writeFileSync } from "node:fs";
import { generateFromDisk, parserPath } from "./generate.ts";

writeFileSync(parserPath, generateFromDisk());
console.log(`wrote ${parserPath.pathname}`);
