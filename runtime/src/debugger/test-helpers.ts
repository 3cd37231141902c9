/** Test helpers of the debugger: kernels compiled from text, and their arguments in the executor's form. */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { KernelChecker, makeArtifact, type IrModule, type KernelArtifact } from "@cudascript/compiler";
import type { ArgDesc } from "../simulator/executor";
import type { AnyDTypeName } from "../dtypes";

let checker: KernelChecker | undefined;
let counter = 0;

/** A kernel file's IR and artifact (it must check without errors); `file` is where its lines are. */
export function compileKernels(text: string): { module: IrModule; artifact: KernelArtifact; file: string } {
  checker ??= new KernelChecker();
  const file = path.join(__dirname, `__debugger_${process.pid}_${counter++}.ts`);
  checker.setFileText(file, text);
  const r = checker.checkFile(file);
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  assert.deepEqual(errors.map((d) => `${d.span.line}: ${d.code} ${d.message}`), []);
  return { module: r.module, artifact: makeArtifact(r.module, { staticSharedBytes: r.staticSharedBytes }), file };
}

const DTYPES: [new (...a: never[]) => unknown, AnyDTypeName][] = [
  [Float32Array, "f32"],
  [Float64Array, "f64"],
  [Int32Array, "i32"],
  [Uint32Array, "u32"],
];

/** A typed array (1-D) or scalar as the simulator's executor receives it. */
export function argDesc(v: Float32Array | Float64Array | Int32Array | Uint32Array | number): ArgDesc {
  if (typeof v === "number") return { kind: "scalar", value: v };
  const dtype = DTYPES.find(([C]) => v instanceof C)![1];
  return { kind: "array", buffer: v.buffer, byteOffset: v.byteOffset, length: v.length, dtype, shape: [v.length] };
}

/** The line of the first line of `file`'s text that contains `marker`. */
export function lineOf(text: string, marker: string): number {
  const i = text.split("\n").findIndex((l) => l.includes(marker));
  assert.ok(i >= 0, `no line contains ${marker}`);
  return i + 1;
}
