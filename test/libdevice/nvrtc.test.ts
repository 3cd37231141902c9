/**
 * Every prototype of the libdevice table is real: one CUDA C++ source declares all 317
 * (`extern "C" __device__ …;`, as the CUDA generator does) and calls each once from a kernel; the real
 * NVRTC compiles it for sm_70 without a warning, and the PTX has no unresolved `.extern .func __nv_*`
 * (NVRTC linked libdevice's definition of every one).
 */
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { LIBDEVICE_FUNCTIONS, type LibdeviceType } from "@cudascript/compiler/dist/intrinsics/libdevice-table.js";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";

const ARRAY: Record<LibdeviceType, string> = { f64: "d", f32: "f", i32: "i", i64: "l", i16: "s" };
const C: Record<LibdeviceType, string> = { f64: "double", f32: "float", i32: "int", i64: "long long", i16: "short" };

export function libdeviceCallSource(): string {
  const lines = LIBDEVICE_FUNCTIONS.map((f) => `extern "C" __device__ ${f.prototype};`);
  lines.push("", `extern "C" __global__ void call_every_libdevice_function(double* d, float* f, int* i, long long* l, short* s) {`);
  lines.push("  const int t = threadIdx.x;");
  LIBDEVICE_FUNCTIONS.forEach((f, k) => {
    const m = /^(\w+(?: long)?) __nv_\w+\((.*)\)$/.exec(f.prototype)!;
    const returnsValue = m[1] !== "void";
    let out = 0;
    const args = m[2]!.split(", ").map((a, j) => {
      const [, type, pointer] = /^(float|double|short|int|long long)(\*?)/.exec(a)!;
      const lt = (Object.keys(C) as LibdeviceType[]).find((key) => C[key] === type)!;
      if (pointer) return `&o${k}_${out++}`;
      return `${ARRAY[lt]}[t + ${j}]`;
    });
    const outs = f.results.slice(returnsValue ? 1 : 0);
    const decls = outs.map((r, j) => `${C[r]} o${k}_${j};`).join(" ");
    const call = `__nv_${f.name}(${args.join(", ")})`;
    const stores = outs.map((r, j) => `${ARRAY[r]}[t + ${k}] = o${k}_${j};`).join(" ");
    const result = returnsValue ? `${ARRAY[f.results[0]!]}[t + ${k}] = ${call};` : `${call};`;
    lines.push(`  { ${decls} ${result} ${stores} }`);
  });
  lines.push("}");
  return lines.join("\n") + "\n";
}

test("NVRTC compiles a call to every libdevice prototype for sm_70, no warning, every __nv_* linked", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const source = libdeviceCallSource();
  const r = nvrtc.compile({ source, name: "libdevice_calls.cu", options: ["--gpu-architecture=sm_70"], wantCubin: true });
  assert.ok(r.ok, r.log);
  assert.deepEqual(r.log.split("\n").filter((l) => /warning/i.test(l)), [], "NVRTC's log");
  const unresolved = [...r.ptx!.matchAll(/\.extern\s+\.func[^;]*?(__nv_\w+)/g)].map((m) => m[1]);
  assert.deepEqual(unresolved, [], "unresolved libdevice functions in the PTX");
  // Each function's code is really in the module: none was dropped as unused.
  assert.ok(r.cubin && r.cubin.length > 0);
  console.log(`NVRTC: ${LIBDEVICE_FUNCTIONS.length} libdevice prototypes declared and called; PTX ${r.ptx!.length} bytes, no .extern __nv_*`);
});
