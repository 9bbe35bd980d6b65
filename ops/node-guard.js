// @module The pre-script guard: fail fast when npm scripts would run under a Node older than 24
// (for example after `npm ci --ignore-scripts`, which silently skips installing the project's Node).
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  process.stderr.write(
    `charter: npm scripts are running under Node ${process.versions.node}; Node 24 is required.\n` +
      "Run `npm ci` (without --ignore-scripts) so the project's own Node 24 lands in node_modules/.bin.\n",
  );
  process.exit(1);
}
