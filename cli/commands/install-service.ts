/**
 * @module `charter install-service [--user charter] [--data /var/lib/charter] [--out PATH]`: writes
 * the systemd unit (ops/systemd/service-unit.ts) with this checkout's paths and Node 24's, then
 * says what is left to do: create the user, reload systemd, enable the service.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { serviceUnit, UNIT_DEFAULTS, unitValueProblem } from "../../ops/systemd/service-unit.ts";
import { DEFAULT_LISTEN, parseListen, UsageError } from "../options.ts";

const DEFAULT_OUT = "/etc/systemd/system/charter.service";

const usage = [
  "Usage: charter install-service [--user USER] [--data DIR] [--out PATH] [--listen HOST:PORT] [--origin URL]",
  "",
  "Writes the systemd unit that runs `charter node` from this checkout as USER, with its data in DIR:",
  "Type=notify (ready once every listener is bound), Restart=on-failure, and a sandbox in which only",
  "DIR is writable. Then: create the user, `systemctl daemon-reload`, `systemctl enable --now charter`.",
  "",
  `  --user USER        the user and group the node runs as (default: ${UNIT_DEFAULTS.user})`,
  `  --data DIR         the data directory (default: ${UNIT_DEFAULTS.dataDir}; under /var/lib, systemd creates it)`,
  `  --out PATH         where the unit is written (default: ${DEFAULT_OUT}; - prints it)`,
  `  --listen HOST:PORT the node's HTTP address (default: ${DEFAULT_LISTEN})`,
  "  --origin URL       the app's origin as browsers see it (for other devices: https with a host name)",
  "",
].join("\n");

const projectDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export default function installService(args: string[]): Promise<number> {
  return Promise.resolve(run(args));
}

function run(args: string[]): number {
  let unit: string;
  let out: string;
  let user: string;
  try {
    const { values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: { user: { type: "string" }, data: { type: "string" }, out: { type: "string" }, listen: { type: "string" }, origin: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
    if (values.help === true) {
      process.stdout.write(usage);
      return 0;
    }
    user = values.user ?? UNIT_DEFAULTS.user;
    if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(user)) throw new UsageError(`--user '${user}' is not a user name`);
    const dataDir = values.data ?? UNIT_DEFAULTS.dataDir;
    if (!isAbsolute(dataDir)) throw new UsageError(`--data must be an absolute path, got '${dataDir}'`);
    const listen = values.listen ?? DEFAULT_LISTEN;
    parseListen(listen);
    if (values.origin !== undefined && !URL.canParse(values.origin)) throw new UsageError(`--origin expects a URL, got '${values.origin}'`);
    const nodePath = join(projectDir, "node_modules", "node", "bin", "node");
    if (!existsSync(nodePath)) throw new UsageError(`Node 24 is not installed in this checkout (${nodePath}): run \`npm ci\` first`);
    for (const [name, value] of [["the checkout's path", projectDir], ["--data", dataDir], ["--listen", listen], ["--origin", values.origin]] as const) {
      const problem = value === undefined ? null : unitValueProblem(name, value);
      if (problem !== null) throw new UsageError(problem);
    }
    unit = serviceUnit({ projectDir, nodePath, user, dataDir, listen, ...(values.origin === undefined ? {} : { origin: values.origin }) });
    out = values.out ?? DEFAULT_OUT;
  } catch (error) {
    process.stderr.write(`charter install-service: ${(error as Error).message.split("\n")[0]} (run \`charter install-service --help\`)\n`);
    return 2;
  }
  if (out === "-") {
    process.stdout.write(unit);
    return 0;
  }
  const temp = `${out}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, unit, { mode: 0o644 });
    renameSync(temp, out);
  } catch (error) {
    rmSync(temp, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    process.stderr.write(`charter install-service: cannot write ${out} (${code ?? (error as Error).message})${code === "EACCES" ? "; run it with sudo, or give --out" : ""}\n`);
    return 1;
  }
  process.stdout.write(
    [
      `wrote ${out}`,
      ...(userExists(user) ? [] : [`create its user:   sudo useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin ${user}`]),
      "then:              sudo systemctl daemon-reload && sudo systemctl enable --now charter",
      "its log:           journalctl -u charter -f   (and DATA/logs/charter.log)",
      "",
    ].join("\n"),
  );
  return 0;
}

/** Whether `/etc/passwd` names the user (a directory service's users are not seen: the hint is then extra). */
function userExists(user: string): boolean {
  try {
    return readFileSync("/etc/passwd", "utf8").split("\n").some((line) => line.startsWith(`${user}:`));
  } catch {
    return true;
  }
}
