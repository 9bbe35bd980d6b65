/**
 * @module The assistant's autonomy runs: starting one (asked by the person, or by the schedule)
 * and finishing one once its turn has ended. A run is `std.autonomy` `Run.Begin` and
 * `std.conversation` `Turn.Queue` (origin `autonomy`, its message the run's id), both signed as the
 * person, then the turn's journal entry the assistant worker runs. Its turn ending records what
 * came of it: done, the reply as a `Reflection` and `Run.Conclude` with the tokens spent; failed
 * or cancelled, `Run.Abandon` with why. That happens when the turn's end is recorded (the shape's
 * `ended`), and again on every later look (`settle`, which the scheduler runs), so a node stopped
 * in between finishes it when it is back: the writes have fixed subjects and keys, and depend only
 * on the records, so writing them twice changes nothing.
 *
 * Never two runs at once: a run whose turn is queued, running or waiting is the current one, and
 * starting another is `409 run-in-progress`. Starts and finishes go one at a time.
 */
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { signedWrites } from "../personal/signed-write.ts";
import {
  AUTONOMY,
  AUTONOMY_CONVERSATION,
  AUTONOMY_ORIGIN,
  findGoal,
  findRun,
  goalLeastWorked,
  activeGoals,
  lastRun,
  reflectionId,
  RUN_KINDS,
  type RunKind,
  runningRuns,
  runOfTurn,
  runTurnId,
  type RunView,
  runView,
} from "./autonomy-records.ts";
import { autonomyShape } from "./autonomy-shape.ts";
import { clipText } from "./contract-docs.ts";
import { CONVERSATION, findMessage, findTurn, type TurnView } from "./conversation.ts";
import type { Connections } from "./connections.ts";
import { autonomySettings, routeChoices } from "./model-route.ts";
import type { NodeSettings } from "./node-settings.ts";
import type { TurnShape } from "./turn-context.ts";
import type { TurnHost } from "./turn-host.ts";

/** The most goals looked at when choosing the one to advance, and the most unfinished runs settled in one look. */
const GOALS_LOOKED_AT = 100;
const RUNNING_LOOKED_AT = 20;
/** The longest reflection and summary kept (the contract's fields). */
const REFLECTION_CHARS = 8000;
const SUMMARY_CHARS = 1000;
const REASON_CHARS = 500;

/** What the runs need. */
export interface AutonomyDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly settings: NodeSettings;
  readonly connections: Pick<Connections, "get">;
  readonly turns: Pick<TurnHost, "enqueue" | "turnFrame">;
  readonly now: () => number;
  readonly timeZone: () => string;
  readonly log: Logger;
}

/** What a run is asked to do: its kind, and for an initiative the goal (the one worked on least recently when absent). */
export interface RunRequest {
  readonly kind: RunKind;
  readonly goal?: string;
}

/** Autonomy runs: started, finished, and what the schedule needs to know of them. */
export class Autonomy {
  readonly #deps: AutonomyDeps;
  readonly #listeners: (() => void)[] = [];
  /** The turn shape of origin `autonomy` (node-api.ts registers it with the turn host). */
  readonly shape: TurnShape;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(deps: AutonomyDeps) {
    this.#deps = deps;
    this.shape = autonomyShape({ ...deps, ended: (turn) => this.#serial(() => this.#finishTurn(turn.id)) });
    // A run begun or ended anywhere, or its turn cancelled while it waited (no `ended` then), is news for the schedule.
    deps.writer.onAccepted((write) => {
      if (write.namespace === AUTONOMY && (write.action === "Begin" || write.action === "Conclude" || write.action === "Abandon")) this.#changed();
      else if (write.namespace === CONVERSATION && write.action === "Cancel" && write.subject.startsWith("turn-") && this.#quietly(() => findRun(deps.reader, runOfTurn(write.subject))) !== null) this.#changed();
    });
  }

  /** Hears every change the schedule cares about: the setting, a run begun or ended. */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /** The `autonomy` setting changed (its routes call this). */
  settingChanged(): void {
    this.#changed();
  }

  /** The `autonomy` setting, its defaults filled in. */
  setting(): { enabled: boolean; intervalMinutes: number; turnTokenBudget: number } {
    return autonomySettings(this.#deps.settings);
  }

  /** Whether a model is configured for planning (which falls back to the conversation's). */
  modelConfigured(): boolean {
    return routeChoices("planning", this.#deps.settings, this.#deps.connections).length > 0;
  }

  /** The run begun last (its kind and start, ms), or null before the first. */
  lastRun(): { kind: RunKind; startedAt: number } | null {
    const run = lastRun(this.#deps.reader);
    return run === null ? null : { kind: run.kind, startedAt: run.startedAt === null ? 0 : Date.parse(run.startedAt) };
  }

  /** Whether the person has an active goal. */
  hasActiveGoal(): boolean {
    return activeGoals(this.#deps.reader, 1).length > 0;
  }

  /** Finishes every run whose turn has ended; answers the current run (its turn not ended), or null. */
  settle(): Promise<RunView | null> {
    return this.#serial(() => this.#settle());
  }

  /**
   * Starts a run now: `409 no-model` without a model, `409 run-in-progress` while one runs, for an
   * initiative `404` for an unknown goal, `409 goal-closed` for one not active, `409 no-active-goal`
   * when none is left to choose; the contract's refusal as `422`. Answers the run.
   */
  start(request: RunRequest): Promise<RunView> {
    return this.#serial(() => this.#start(request));
  }

  async #start(request: RunRequest): Promise<RunView> {
    const { reader, writer, turns, now } = this.#deps;
    if (!this.modelConfigured()) throw new HttpProblem(problem(409, "no-model", "no model is configured: add a connection and choose a model first (/api/setup/model)"));
    const current = await this.#settle();
    if (current !== null) throw new HttpProblem(problem(409, "run-in-progress", `run '${current.id}' is under way (turn '${current.turn}'): one run at a time`));
    let goal = "";
    if (request.kind === "initiative") {
      if (request.goal !== undefined) {
        const found = findGoal(reader, request.goal);
        if (found === null) throw new HttpProblem(problem(404, "not-found", `no goal '${request.goal.slice(0, 128)}'`));
        if (found.status !== "active") throw new HttpProblem(problem(409, "goal-closed", `goal '${found.id}' is ${found.status}: only an active goal is worked on`));
        goal = found.id;
      } else {
        const chosen = goalLeastWorked(reader, GOALS_LOOKED_AT);
        if (chosen === null) throw new HttpProblem(problem(409, "no-active-goal", "an initiative advances a goal, and there is no active goal: set one first"));
        goal = chosen.id;
      }
    }
    const run = timeOrderedId("run", now());
    const turn = runTurnId(run);
    const budget = this.setting().turnTokenBudget;
    const [begun] = await signedWrites(writer, [
      { namespace: AUTONOMY, action: "Begin", subject: run, args: { kind: RUN_KINDS[request.kind], goal, turn, budget }, idempotencyKey: `${run}:begin` },
      { namespace: CONVERSATION, action: "Queue", subject: turn, args: { conversation: AUTONOMY_CONVERSATION, message: run, origin: AUTONOMY_ORIGIN }, idempotencyKey: `${run}:queue` },
    ]);
    // Announced before the hand-off: the turn may run, and finish, before enqueue returns.
    turns.turnFrame(turn, "queued", { message: run });
    await turns.enqueue(turn, `${run}:queued`);
    this.#deps.log.info("an autonomy run started", { run, turn, kind: request.kind, ...(goal === "" ? {} : { goal }), budget });
    return runView(run, begun?.receipt.state ?? {});
  }

  async #settle(): Promise<RunView | null> {
    const { reader } = this.#deps;
    let current: RunView | null = null;
    for (const run of runningRuns(reader, RUNNING_LOOKED_AT)) {
      const turn = findTurn(reader, run.turn);
      if (turn === null) {
        // Begun, and the node stopped before its turn was queued (starts go one at a time: none is under way).
        await this.#write(run.id, "Abandon", { reason: "its turn was never queued (the node stopped, or the engine refused it, while the run started)" }, `${run.id}:abandon`);
      } else if (turn.status === "done" || turn.status === "failed" || turn.status === "cancelled") {
        await this.#finish(run, turn);
      } else current ??= run;
    }
    return current;
  }

  /** Finishes the run of `turnId`, if it is a run's and still running. */
  async #finishTurn(turnId: string): Promise<void> {
    const { reader } = this.#deps;
    const turn = findTurn(reader, turnId);
    const run = turn === null ? null : findRun(reader, turn.message);
    if (turn !== null && run !== null && run.status === "running" && run.turn === turn.id) await this.#finish(run, turn);
  }

  /** Records what came of `run`, whose turn has ended: from the records alone, so any look writes the same. */
  async #finish(run: RunView, turn: TurnView): Promise<void> {
    if (turn.status === "done") {
      const reply = turn.reply === null ? "" : (findMessage(this.#deps.reader, turn.reply)?.text ?? "");
      if (reply.trim() !== "") await this.#write(reflectionId(run.id), "Record", { run: run.id, text: clipText(reply, REFLECTION_CHARS) }, `${run.id}:reflection`, "Reflection");
      await this.#write(run.id, "Conclude", { summary: clipText(reply, SUMMARY_CHARS), tokens: turn.tokensIn + turn.tokensOut }, `${run.id}:conclude`);
      return;
    }
    const reason = turn.status === "cancelled" ? "cancelled" : turn.error === null ? "failed" : `${turn.error.kind === "" ? "failed" : turn.error.kind}: ${turn.error.message}`;
    await this.#write(run.id, "Abandon", { reason: clipText(reason, REASON_CHARS) }, `${run.id}:abandon`);
  }

  /** Signs one write of `std.autonomy`; a refusal means another look wrote it first, a problem is left for the next look. */
  async #write(subject: string, action: string, args: Record<string, unknown>, idempotencyKey: string, aggregate = "Run"): Promise<void> {
    const write: PersonWrite = { namespace: AUTONOMY, action, subject, args, idempotencyKey };
    const answer = await this.#deps.writer.act(write);
    if (answer.kind === "problem") this.#deps.log.warn("an autonomy run's record was not written; the next look tries again", { subject, action: `${aggregate}.${action}`, code: answer.problem.code, error: answer.problem.detail });
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }

  /** `read`'s answer, or null where the records cannot say (before set-up, without the contract). */
  #quietly<T>(read: () => T): T | null {
    try {
      return read();
    } catch (error) {
      if (error instanceof HttpProblem) return null;
      throw error;
    }
  }
}
