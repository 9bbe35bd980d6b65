/**
 * @module The tool servers a person can add without writing a command: each with its launch recipe
 * (a stdio command as an argv array, or a streamable HTTP URL) and what the person still has to
 * give (the folders a file server may reach, a repository's path). `custom` is any other server,
 * given whole. A recipe is run exactly as written here, never through a shell.
 */

/** One known server. */
export interface CatalogueEntry {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly transport: "stdio" | "http";
  /** A stdio server's argv (the person's `args` are appended). */
  readonly command?: readonly string[];
  /** An HTTP server's endpoint. */
  readonly url?: string;
  /** What the person's `args` are, when the recipe takes some; `required`: it does not run without them. */
  readonly args?: { readonly required: boolean; readonly description: string };
}

/** The id that names no recipe: the person gives the command or the URL. */
export const CUSTOM = "custom";

/** The built-in catalogue, by id. */
export const TOOL_SERVER_CATALOGUE: readonly CatalogueEntry[] = [
  {
    id: "filesystem",
    name: "Files",
    description: "Reads, searches and writes files inside the folders you name (the reference server from the Model Context Protocol project, run with npx).",
    transport: "stdio",
    command: ["npx", "-y", "@modelcontextprotocol/server-filesystem"],
    args: { required: true, description: "the folders the server may reach, one argument each" },
  },
  {
    id: "memory",
    name: "Knowledge graph",
    description: "A small knowledge graph of entities and relations kept in a local file (reference server, run with npx).",
    transport: "stdio",
    command: ["npx", "-y", "@modelcontextprotocol/server-memory"],
  },
  {
    id: "fetch",
    name: "Web pages",
    description: "Fetches a web page and gives it back as Markdown (reference server, run with uvx).",
    transport: "stdio",
    command: ["uvx", "mcp-server-fetch"],
  },
  {
    id: "git",
    name: "Git repository",
    description: "Reads a local Git repository: status, log, diffs, branches (reference server, run with uvx).",
    transport: "stdio",
    command: ["uvx", "mcp-server-git", "--repository"],
    args: { required: true, description: "the repository's folder" },
  },
  {
    id: "time",
    name: "Time zones",
    description: "The time in any zone, and conversions between zones (reference server, run with uvx).",
    transport: "stdio",
    command: ["uvx", "mcp-server-time"],
  },
  {
    id: "github",
    name: "GitHub",
    description: "GitHub's own remote server: issues, pull requests, code search. Signing in to GitHub authorizes it (OAuth).",
    transport: "http",
    url: "https://api.githubcopilot.com/mcp/",
  },
];

/** The entry `id` names, or undefined (also for `custom`). */
export function catalogueEntry(id: string): CatalogueEntry | undefined {
  return TOOL_SERVER_CATALOGUE.find((e) => e.id === id);
}
