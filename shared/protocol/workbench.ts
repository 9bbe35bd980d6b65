/**
 * @module What the Workbench reports for one step (cli/workbench), as its command line and the
 * node's `/api/workbench/check` (which runs it in a child process) both answer it.
 */

export interface StepReport {
  readonly step: number;
  readonly action: string;
  readonly subject: string;
  readonly signer: string;
  readonly pid: number | null;
  readonly outcome: "accepted" | "refused" | "rejected" | "timeout" | "failed";
  /** The subject's public state after the step (accepted or refused). */
  readonly state?: Record<string, unknown>;
  /** Why a command was refused (the receipt's reason). */
  readonly reason?: unknown;
  /** A command that was not accepted as a command at all: its problem document. */
  readonly problem?: unknown;
  /** Why a step timed out or failed, in one line. */
  readonly error?: string;
}
