/**
 * @module `npm run sim`: the long simulations. `npm run sim -- raft [flags]` runs the Raft one
 * (test/raft/sim-cli.ts), `npm run sim -- sync [flags]` the paired devices' one (test/sync/sim-cli.ts);
 * flags alone go to the Raft one, as before; nothing runs both with their defaults.
 */
import { spawnSync } from "node:child_process";

const [first, ...rest] = process.argv.slice(2);
const run = (file: string, args: readonly string[]) => spawnSync(process.execPath, [new URL(file, import.meta.url).pathname, ...args], { stdio: "inherit" }).status ?? 1;
let status: number;
if (first === "sync") status = run("./sync/sim-cli.ts", rest);
else if (first === "raft") status = run("./raft/sim-cli.ts", rest);
else if (first === undefined) status = run("./raft/sim-cli.ts", []) || run("./sync/sim-cli.ts", []);
else status = run("./raft/sim-cli.ts", [first, ...rest]);
process.exitCode = status;
