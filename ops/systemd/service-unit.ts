/**
 * @module The systemd unit that runs `charter node` as a service: a dedicated user, its data in a
 * directory only it may write, READY sent once the tree serves (`Type=notify`), restarted on
 * failure, and the sandbox `systemd-analyze security` asks for, less what Node cannot run under.
 * `charter install-service` renders it with this checkout's paths; `charter.service` beside this
 * file is the rendering for a checkout in /opt/charter (the unit test keeps the two the same).
 */

export interface UnitOptions {
  /** The checkout: `bin/charter.js` is in it. */
  readonly projectDir: string;
  /** Node 24: the checkout's `node_modules/node/bin/node`. */
  readonly nodePath: string;
  /** The user (and group) the node runs as. */
  readonly user: string;
  readonly dataDir: string;
  /** `--listen HOST:PORT`. */
  readonly listen: string;
  /** `--origin URL`, when other devices reach the node by a name. */
  readonly origin?: string;
}

/** The defaults of `charter install-service`, and the committed unit's. */
export const UNIT_DEFAULTS = { projectDir: "/opt/charter", user: "charter", dataDir: "/var/lib/charter", listen: "127.0.0.1:8787" } as const;

/** Characters a path or value in the unit may hold: no spaces, quotes or `%` (systemd's specifiers). */
const PLAIN = /^[A-Za-z0-9._/+:@=,[\]-]+$/;

/** Why a value cannot go into the unit as it is, or null. */
export function unitValueProblem(name: string, value: string): string | null {
  if (!PLAIN.test(value)) return `${name} '${value}' has a character the unit cannot carry unquoted (use letters, digits and . _ / + : @ = , - only)`;
  return null;
}

/** Under /home, /root or /run/user the node's code is in a home: ProtectHome must let it be read. */
function inHome(path: string): boolean {
  return /^\/(home|root|run\/user)(\/|$)/.test(path);
}

/** The unit's text. */
export function serviceUnit(o: UnitOptions): string {
  const stateDirectory = /^\/var\/lib\/([A-Za-z0-9._-]+)$/.exec(o.dataDir)?.[1];
  const exec = [o.nodePath, `${o.projectDir}/bin/charter.js`, "node", "--data", o.dataDir, "--listen", o.listen, ...(o.origin === undefined ? [] : ["--origin", o.origin])].join(" ");
  return `# Charter's personal node as a systemd service. Written by \`charter install-service\`
# (ops/systemd/service-unit.ts); write it again after moving the checkout.
[Unit]
Description=Charter personal node
Documentation=file://${o.projectDir}/README.md
Wants=network-online.target
After=network-online.target

[Service]
# The supervisor runs \`systemd-notify --ready\` once every listener is bound: Node has no datagram
# Unix socket to send it itself, so the helper (a child of the supervisor) must be heard too.
Type=notify
NotifyAccess=all
User=${o.user}
Group=${o.user}
ExecStart=${exec}
WorkingDirectory=${o.dataDir}
${stateDirectory === undefined ? "" : `StateDirectory=${stateDirectory}\nStateDirectoryMode=0700\n`}UMask=0077
Restart=on-failure
RestartSec=2s
TimeoutStartSec=120s
# SIGTERM to the supervisor alone: it drains the workers in order (the gateway finishes its
# requests while the engine still runs); whatever is left at the timeout is killed.
KillMode=mixed
TimeoutStopSec=30s
# Open connections, sockets and files: above --max-connections (2048) with room to spare. Set here
# because raising its own limit (setrlimit) is among the calls the sandbox refuses.
LimitNOFILE=65536

# The sandbox. Writable: the data directory only.
ProtectSystem=strict
ReadWritePaths=${o.dataDir}
${inHome(o.projectDir) || inHome(o.nodePath) ? "# The checkout is in a home directory: it stays readable, never writable.\nProtectHome=read-only" : "ProtectHome=yes"}
PrivateTmp=yes
PrivateMounts=yes
PrivateDevices=yes
DevicePolicy=closed
NoNewPrivileges=yes
CapabilityBoundingSet=
AmbientCapabilities=
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RemoveIPC=yes
PrivateIPC=yes
PrivateUsers=yes
ProtectClock=yes
ProtectHostname=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectProc=invisible
KeyringMode=private
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallFilter=~@privileged @resources
SystemCallErrorNumber=EPERM
# Left off: MemoryDenyWriteExecute (V8 compiles JavaScript and WebAssembly to machine code at run
# time, in memory it writes and then executes: Node does not start under it); ProcSubset=pid (the
# start-up check of free memory reads /proc/meminfo); IPAddressDeny (the assistant, connectors and
# the release channel reach hosts the person configures); PrivateNetwork and RestrictAddressFamilies
# without AF_INET (the node serves HTTP); NotifyAccess=all is needed for the READY helper (above).

[Install]
WantedBy=multi-user.target
`;
}
