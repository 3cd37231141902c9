/**
 * What Profile decides without the editor (unit-tested in Node): whether a file is profiled as a
 * program, why a profiler run gave no profile, and reading the profile it wrote.
 */
import * as fs from "node:fs";
import { isProblem, parseProfile, type ProfileReport } from "./profile-model";
import type { RunResult } from "./runner";

/**
 * Whether the palette's Profile runs a file as a program: it launches kernels itself (`k.launch(…)`,
 * `k.forall(n)(…)`), or it defines no `cuda.jit` kernel (a host program of imported kernels or ufuncs).
 * Otherwise it is a file of kernels, and one of them is profiled from its @run tag.
 */
export function launchesKernels(text: string): boolean {
  return /\.(launch|forall)\s*\(/.test(text) || !/\bjit\s*\(/.test(text);
}

const NO_LAUNCH =
  "The program launched no kernel, so there is nothing to profile. Profile a kernel from its Profile CodeLens (it launches the kernel as its @run tag says), or a host program that launches kernels.";

/** Why the profiler's run gave no profile, from its result and output, in words a user acts on. */
export function runProblem(run: RunResult): string {
  if (run.state === "cancelled") return "The profile was cancelled.";
  if (/unknown command[^\n]*profile|profile[^\n]*(is not a|unknown) command/i.test(run.output))
    return "This project's cudascript has no `profile` command: update it (npm install --save-dev cudascript@latest), or remove it from the project so the extension's own CLI runs.";
  // the profiler's CLI ends a program that finished without launching anything with this (and exit code 1)
  if (/ended \(exit code 0\) before any profile was written/.test(run.output)) return NO_LAUNCH;
  if (run.state === "timeout") return `The profile ${run.message}. A profile runs on the simulator: profile a smaller launch (the @run tag's grid), or raise cudascript.run.timeoutSeconds.`;
  return `The profiler did not finish: ${run.message}. Nothing to show; the run's output is below.`;
}

/** The message for a profile file: its report, or what is wrong with it. */
export function readProfile(file: string): ProfileReport | { problem: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return { problem: `The profiler wrote no profile (${file} is missing).` };
  }
  const report = parseProfile(text);
  if (isProblem(report)) return { problem: `The profile cannot be shown: ${report.problem}.` };
  if (!report.launches.length)
    return { problem: NO_LAUNCH };
  return report;
}
