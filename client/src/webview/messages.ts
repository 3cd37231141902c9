/** Messages between the extension host and the results panel's webview. */
import type { ResultRecord } from "cudascript/dist/report/protocol";
import type { ProfileMessage, ProfileSummary } from "./profile-section";

export type { ResultRecord };

export type RunState = "running" | "ok" | "failed" | "timeout" | "cancelled";

export interface RunInfo {
  /** What ran, as shown in the header (`examples/saxpy.ts`, or `kernel saxpy in src/k.ts`). */
  readonly title: string;
  readonly program: string;
  readonly command: string;
  readonly startedAt: string;
}

export interface RunStatus {
  readonly state: RunState;
  readonly exitCode?: number | null;
  readonly durationMs?: number;
  readonly message?: string;
  /** The run ended with a kernel fault the debugger can replay: the status offers "Debug this fault" (fault-replay.ts). */
  readonly debugFault?: true;
}

export type ToWebview =
  | { readonly type: "reset"; readonly run: RunInfo; readonly resultsFile: string }
  | { readonly type: "records"; readonly records: ResultRecord[] }
  | { readonly type: "output"; readonly text: string; readonly stream: "stdout" | "stderr" }
  | { readonly type: "status"; readonly status: RunStatus }
  | { readonly type: "profile"; readonly profile: ProfileMessage; readonly file?: string };

export interface RenderedSummary {
  readonly state: RunState | "none";
  readonly launches: number;
  readonly arrays: { name: string; shape: number[]; chart: "line" | "histogram" | "heatmap" | "none"; rows: number }[];
  readonly findings: number;
  readonly timingsShown: boolean;
  readonly profile?: ProfileSummary;
}

export type FromWebview =
  | { readonly type: "ready" }
  | { readonly type: "open"; readonly file: string; readonly line: number }
  | { readonly type: "rendered"; readonly summary: RenderedSummary }
  | { readonly type: "debugFault" };

/** What the webview persists with setState (small: the data is re-read from the results file). */
export interface PanelState {
  readonly resultsFile: string;
  readonly run: RunInfo;
  readonly status?: RunStatus;
  readonly output?: string;
  /** The profile report the Profile section shows (profiles/…json): read again after a reload. */
  readonly profileFile?: string;
}
