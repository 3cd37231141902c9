/**
 * The line that says why a run failed, for the toast and the results panel's status: the run's output
 * ends with context (`  (from the host program at main.ts:16:19)`, a stack, Node's version), so its
 * last line is rarely the reason.
 */

/** A coded error: `cudascript: error CSR020: …`, `main.ts:3:14 - error CS1001: …`. */
const CODED_ERROR = /\berror (CSR?\d{3,4}|CSD\d{3}|TS\d+):/;
/** An uncaught JavaScript error's message line: `TypeError: k is not a function`. */
const JS_ERROR = /^(\w*Error|CudaScriptError)(\s\[\w+\])?: /;

export function failureLine(output: string): string {
  const lines = output.split("\n").map((l) => l.trimEnd()).filter(Boolean);
  const coded = lines.find((l) => CODED_ERROR.test(l));
  if (coded) return coded.replace(/^cudascript: /, "");
  return lines.find((l) => JS_ERROR.test(l)) ?? lines.pop() ?? "";
}
