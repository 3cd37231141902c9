import { test } from "node:test";
import assert from "node:assert/strict";
import { assemblePtx } from "@cudascript/native-bindings";
import { nvrtcOrSkip, ptxasOrSkip } from "../../../test/dist/support/toolchain-or-skip";
import { checkKernel } from "../../../test/dist/support/check-sources";
import type { IrModule } from "../ir/nodes";
import { generateCuda } from "./generate";
import { PRINTF_BYTES_SYMBOL, printfRecordLowerBound } from "./printf-bytes";

function moduleOf(body: string): IrModule {
  const r = checkKernel(body);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.message}`), []);
  return r.module;
}

const PRINTING = `export const report = cuda.jit((x: Float32Array, n: i32) => {
  const i = cuda.grid(1);
  if (i < n) console.log("x", i, x[i], x[i] > 0);
});`;

test("the printf record lower bound: the format address (or its text), 4 bytes per int, 8 per double, 5 per %s", () => {
  assert.equal(printfRecordLowerBound("x %d %g %s\n", ["int", "double", "string"]), 8 + 4 + 8 + 5);
  // A format shorter than a pointer may be stored as its characters: count only those (and the NUL).
  assert.equal(printfRecordLowerBound("\n", []), 2);
  assert.equal(printfRecordLowerBound("%d\n", ["int"]), 4 + 4);
  assert.equal(printfRecordLowerBound("é%d\n", ["int"]), 6 + 4, "UTF-8 bytes, not UTF-16 units");
});

test("every console.log adds its record's lower bound to the module's extern \"C\" printf counter before printing", () => {
  const src = generateCuda(moduleOf(PRINTING), { lineDirectives: false }).source;
  assert.match(src, new RegExp(`extern "C" \\{\\n__device__ unsigned long long ${PRINTF_BYTES_SYMBOL} = 0ull;\\n\\}`));
  // "x %d %g %s\n": 8 (format address) + 4 (i) + 8 (x[i] as double) + 5 (the bool's "true"/"false").
  assert.match(src, new RegExp(`atomicAdd\\(&${PRINTF_BYTES_SYMBOL}, 25ull\\);\\n\\s*printf\\("x %d %g %s\\\\n", `));
});

test("a module without console.log has no printf counter", () => {
  const src = generateCuda(
    moduleOf(`export const add = cuda.jit((x: Float32Array) => {
  x[cuda.grid(1)] += 1;
});`),
  ).source;
  assert.doesNotMatch(src, new RegExp(PRINTF_BYTES_SYMBOL));
});

test("the printf counter compiles with NVRTC and ptxas into a 64-bit global of the PTX, increased atomically", (t) => {
  const src = generateCuda(moduleOf(PRINTING)).source;
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const r = nvrtc.compile({ source: src, name: "report.cu", options: ["--gpu-architecture=compute_80"] });
  assert.ok(r.ok, r.log);
  const ptx = r.ptx ?? "";
  // Without -rdc NVRTC leaves out `.visible`; cuModuleGetGlobal finds such globals all the same (the
  // NVRTC guide's lowered-names example reads a whole-program `__device__` variable that way).
  assert.match(ptx, new RegExp(`^(\\.visible )?\\.global \\.align 8 \\.u64 ${PRINTF_BYTES_SYMBOL};`, "m"));
  const address = new RegExp(`mov\\.u64\\s+(%rd\\d+), ${PRINTF_BYTES_SYMBOL};`).exec(ptx)?.[1];
  assert.ok(address, "the counter's address is taken");
  assert.match(ptx, new RegExp(`(atom|red)\\.global\\.add\\.u64\\s+(%rd\\d+, )?\\[${address.replace("%", "%")}\\], 25;`));
  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const run = assemblePtx(ptxas, ptx, "sm_80");
  assert.equal(run.ok, true, run.stderr);
});

test("a kernel prints when it or a device function it calls uses console.log; the runtime reads the counter only after such launches", () => {
  const g = generateCuda(
    moduleOf(`const say = cuda.device((n: i32): i32 => {
  console.log("n", n);
  return n;
});
export const viaDevice = cuda.jit((x: Int32Array) => {
  x[0] = say(x[0]);
});
export const direct = cuda.jit((x: Int32Array) => {
  console.log("x", x[0]);
});
export const silent = cuda.jit((x: Int32Array) => {
  x[0] = 1;
});`),
  );
  assert.deepEqual(Object.fromEntries(g.kernels.map((k) => [k.name, k.prints])), { viaDevice: true, direct: true, silent: false });
});
