/**
 * The shapes of one NVRTC compile: what nvrtc.ts asks and answers, and what the compile child
 * (isolated.ts) carries across the process boundary. Their own module, so the two import neither each
 * other nor anything else.
 */

export interface CompileRequest {
  source: string;
  /** Program name used in diagnostics, e.g. "kernels.cu". */
  name: string;
  /** NVRTC options, e.g. ["--gpu-architecture=compute_80", "-default-device"]. */
  options: string[];
  /** Also return the CUBIN; NVRTC produces one only for a real arch (sm_XX). */
  wantCubin?: boolean;
  /** In-memory headers the source can #include by name. */
  headers?: { name: string; source: string }[];
  /** C++ names (e.g. "&kernel<float>") whose mangled names to return in loweredNames. */
  nameExpressions?: string[];
}

export interface CompileResult {
  ok: boolean;
  /** PTX text without the trailing NUL (append "\0" before cuModuleLoadData). */
  ptx?: string;
  cubin?: Uint8Array;
  /** NVRTC's program log: compiler diagnostics, and the ptxas report with -Xptxas -v. */
  log: string;
  /** nvrtcResult name when not ok, e.g. "NVRTC_ERROR_COMPILATION". */
  errorCode?: string;
  /** Name expression → lowered (mangled) name, when nameExpressions were given. */
  loweredNames?: Record<string, string>;
  /** Set when the process NVRTC ran in crashed (errorCode "NVRTC_CRASHED"): no log or output. */
  crashed?: NvrtcCrash;
  /** Wall time of the whole call: create, compile, fetch outputs (and the child process's round trip). */
  millis: number;
}

/** How the compile child ended without answering. */
export interface NvrtcCrash {
  /** The signal that ended it (e.g. "SIGSEGV"), if any. */
  signal: string | null;
  exitCode: number | null;
  /** Why it could not be started, when it could not. */
  startError?: string;
}
