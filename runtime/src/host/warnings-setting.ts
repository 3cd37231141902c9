/**
 * CUDASCRIPT_WARNINGS: what becomes of the checker's warnings about kernels — "warn" (printed, the
 * default) or "error" (they fail the build, or the first launch of a kernel compiled from source, as
 * errors do), so that a test run or a CI build stops on them. Read by compile-from-source, the bundler
 * plugins and `cudascript run`.
 */
import { CudaScriptError } from "../errors";

export type WarningsSetting = "warn" | "error";

export function warningsSetting(env: NodeJS.ProcessEnv = process.env): WarningsSetting {
  const value = env.CUDASCRIPT_WARNINGS || "warn";
  if (value === "warn" || value === "error") return value;
  throw new CudaScriptError("CSR018", `CUDASCRIPT_WARNINGS=${value} is not a setting: use "warn" (print the checker's warnings, the default) or "error" (kernels with warnings do not build or launch)`);
}
