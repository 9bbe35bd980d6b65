/**
 * @module Running the console in a terminal: the live source over the data directory, the ink app
 * on the alternate screen, and a clean close on `q` or Ctrl-C. The only module that starts ink:
 * `charter tui` loads it on demand, so nothing else pays ink's import cost.
 */
import { render } from "ink";
import { createElement as h } from "react";
import { App } from "./app.ts";
import { LiveSource } from "./live-source.ts";
import { glyphsFor } from "./terminal.ts";

export interface ConsoleOptions {
  readonly dataDir: string;
  readonly url?: string;
  readonly ascii?: boolean;
}

/** Shows the console until the user quits; resolves with the exit code. */
export async function runConsole(options: ConsoleOptions): Promise<number> {
  const source = new LiveSource(options.dataDir, options.url === undefined ? {} : { url: options.url });
  await source.refresh();
  source.start();
  // Ink would treat CI=true (set in CI, inherited inside tmux there) as non-interactive and draw
  // nothing until exit; this is a terminal by the caller's check, so it is interactive.
  const instance = render(h(App, { source, glyphs: glyphsFor(process.env, options.ascii ? "ascii" : undefined) }), {
    interactive: true,
    alternateScreen: true,
    incrementalRendering: true,
    exitOnCtrlC: true,
  });
  try {
    await instance.waitUntilExit();
  } finally {
    source.close();
  }
  return 0;
}
