/**
 * @module How an autonomy run's turn differs from one answering the person (turn-context.ts
 * `TurnShape`): it goes to the models chosen for planning (the conversation's when planning has
 * none), may spend the run's token budget and no more, is told that no one is watching and that
 * every change still waits for the person, and is given — instead of a conversation — a brief of
 * the active goals, its latest reflections and what this run is for: a reflection looks back over
 * the recent conversation and the tasks due, an initiative advances one goal. It has the same
 * tools, under the same modes and approvals, as any turn. Every part is bounded.
 */
import type { ChatMessage } from "../../../../shared/models/model.ts";
import { zonedText } from "../time-zone.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { activeGoals, AUTONOMY, findGoal, findRun, latestReflections, type RunView } from "./autonomy-records.ts";
import { clipText } from "./contract-docs.ts";
import { CONVERSATION, MAIN, transcriptLines, type TurnView } from "./conversation.ts";
import { dueTasks } from "./due-tasks.ts";
import { autonomySettings } from "./model-route.ts";
import type { NodeSettings } from "./node-settings.ts";
import type { TurnShape } from "./turn-context.ts";

/** The most goals, reflections, messages and tasks a brief names, and the characters of each part. */
const GOALS = 20;
const REFLECTIONS = 5;
const MESSAGES = 20;
const TASKS_DUE = 20;
const GOAL_CHARS = 600;
const REFLECTION_CHARS = 1500;
const MESSAGE_CHARS = 1000;
const CONVERSATION_CHARS = 8000;
/** An initiative is also told what the goal's last runs concluded. */
const GOAL_RUNS = 3;

/** What an autonomy run is, added to the system text every turn has. */
export const AUTONOMY_SYSTEM = [
  "This turn is an autonomy run: the person turned autonomy on, and the node started you on a schedule (or the person asked for a run now). No one is watching as you work.",
  "Only propose what the person would want. Every change you propose still waits for their approval, as in any turn: never assume it was approved, and never try to approve anything yourself.",
  "Stay within what the run is for. End with a few lines: what you did, and what you would do next.",
].join(" ");

/** What the shape reads: the person's records, the settings, the clock and the person's time zone. */
export interface AutonomyShapeDeps {
  readonly reader: PersonReader;
  readonly settings: NodeSettings;
  readonly now: () => number;
  readonly timeZone: () => string;
  /** Finishes the run once its turn's end is recorded (idempotent). */
  readonly ended: (turn: TurnView) => Promise<void>;
}

/** The `TurnShape` of origin `autonomy`; the turn's `message` is its run's id. */
export function autonomyShape(deps: AutonomyShapeDeps): TurnShape {
  return {
    kind: "planning",
    maxTokens: (turn) => findRun(deps.reader, turn.message)?.budget ?? autonomySettings(deps.settings).turnTokenBudget,
    system: (base) => `${base}\n\n${AUTONOMY_SYSTEM}`,
    messages: (turn) => [{ role: "user", content: runBrief(deps, turn) } satisfies ChatMessage],
    ended: (turn) => deps.ended(turn),
  };
}

/** The brief the run starts from: goals, reflections, then what this run is for. */
export function runBrief(deps: Omit<AutonomyShapeDeps, "ended">, turn: Pick<TurnView, "message">): string {
  const { reader } = deps;
  const run = findRun(reader, turn.message);
  const zone = deps.timeZone();
  const parts = [`Autonomy run ${turn.message}, ${zonedText(deps.now(), zone)} (${zone}).`];
  const goals = activeGoals(reader, GOALS);
  parts.push(goals.length === 0 ? "The person has set no active goals." : `The person's active goals:\n${goals.map((g) => `- ${g.id}: ${clipText(g.why === "" ? g.text : `${g.text} (why: ${g.why})`, GOAL_CHARS)}`).join("\n")}`);
  const reflections = latestReflections(reader, REFLECTIONS);
  if (reflections.length > 0) parts.push(`Your latest reflections, newest first:\n${reflections.map((r) => `- ${r.at ?? ""}: ${clipText(r.text, REFLECTION_CHARS)}`).join("\n")}`);
  parts.push(run?.kind === "initiative" && run.goal !== null ? initiativePart(reader, run, run.goal) : reflectionPart(deps, zone));
  return parts.join("\n\n");
}

function initiativePart(reader: PersonReader, run: RunView, goalId: string): string {
  const goal = findGoal(reader, goalId);
  const lines = [`This run is an initiative: advance one goal by a step the person would welcome.`];
  lines.push(goal === null ? `The goal ${goalId} is gone: say so, and stop.` : `The goal: ${goal.id}: ${clipText(goal.text, GOAL_CHARS)}${goal.why === "" ? "" : `\nWhy it matters: ${clipText(goal.why, GOAL_CHARS)}`}${goal.status === "active" ? "" : `\nIt is ${goal.status} now: say so, and stop.`}`);
  const earlier = reader.query(undefined, AUTONOMY, "GoalRuns", { goal: goalId, limit: GOAL_RUNS + 1 }).rows.filter((r) => String(r.id) !== run.id && String(r.summary ?? "") !== "");
  if (earlier.length > 0) lines.push(`What its earlier runs concluded, newest first:\n${earlier.slice(0, GOAL_RUNS).map((r) => `- ${clipText(String(r.summary), REFLECTION_CHARS)}`).join("\n")}`);
  return lines.join("\n");
}

function reflectionPart(deps: Omit<AutonomyShapeDeps, "ended">, zone: string): string {
  const lines = ["This run is a reflection: look back over the recent conversation and the tasks due, note what matters, and propose at most a few helpful next steps."];
  const { rows } = deps.reader.query(undefined, CONVERSATION, "Recent", { conversation: MAIN, before: "~", limit: MESSAGES });
  const said = transcriptLines(rows, MESSAGE_CHARS, CONVERSATION_CHARS);
  lines.push(said.length === 0 ? "The conversation is empty so far." : `The recent conversation, oldest first:\n${said.join("\n")}`);
  const due = dueTasks(deps.reader, zone, deps.now(), TASKS_DUE);
  lines.push(due.length === 0 ? "No task is due today or overdue." : `Tasks due today or overdue:\n${due.map((t) => `- ${t.id}: ${clipText(t.title, 200)} (due ${t.due})`).join("\n")}`);
  return lines.join("\n");
}
