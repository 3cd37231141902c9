// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. Proves that the GPU backend packs complex parameters as the generated C++ declares them: a c64
// scalar is the 8 bytes of a float2 (re, im as little-endian floats), a c128 the 16 bytes of a double2,
// at the sizes and alignment of the PTX `.param`s NVRTC made of the structs; a complex array is a
// device pointer + its length in complex elements, and a host Complex64Array is copied in and back.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePtx } from "@cudascript/native-bindings/cuda";
import { Complex64Array } from "cudascript";
import { compileSource, gpuOnDouble, kernel } from "./helpers";

const art = compileSource(`
import { cuda, c64, c128, type Array1D } from "cudascript";
export const shift = cuda.jit((a: c64, b: c128, z: Array1D<c64>) => {
  const i = cuda.grid(1);
  if (i < z.length) z[i] = cuda.complex.add(z[i], cuda.complex.c64(cuda.complex.mul(cuda.complex.c128(a), b)));
});
`);

const f32Hex = (...v: number[]) => v.map((x) => { const b = Buffer.alloc(4); b.writeFloatLE(x); return b.toString("hex"); }).join("");
const f64Hex = (...v: number[]) => v.map((x) => { const b = Buffer.alloc(8); b.writeDoubleLE(x); return b.toString("hex"); }).join("");

describe("GPU backend packing of complex parameters (libcuda TEST DOUBLE)", () => {
  it("c64 / c128 scalars are float2 / double2 bytes; a complex array is pointer + element count", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const z = Complex64Array.wrap(Float32Array.of(1, 2, 3, 4, 5, 6));
    kernel(art, "shift").launch(1, 32)({ re: 1.5, im: -2 }, { re: Math.PI, im: 0.1 }, z);
    const ptx = parsePtx(double.calls("cuModuleLoadDataEx")[0]!.ptx as string);
    const entry = ptx.entries.find((e) => e.name === "shift")!;
    assert.deepEqual(entry.params.map((p) => p.size), [8, 16, 8, 4], "the PTX entry: float2, double2, pointer, int");
    const params = double.calls("cuLaunchKernel")[0]!.params as string[];
    assert.equal(params[0], f32Hex(1.5, -2), "c64 { re: 1.5, im: -2 }");
    assert.equal(params[1], f64Hex(Math.PI, 0.1), "c128 { re: π, im: 0.1 }");
    assert.equal(params[3], "03000000", "z_len = 3 complex elements");
    // The host array went in and came back whole (the double runs no kernel: the values are unchanged).
    const copies = double.calls("cuMemcpyHtoD_v2").concat(double.calls("cuMemcpyHtoDAsync_v2"));
    assert.ok(copies.some((c) => Number(c.bytes ?? c.size ?? c.count) === 24), `24 bytes copied in: ${JSON.stringify(copies)}`);
    assert.deepEqual([...z.data], [1, 2, 3, 4, 5, 6]);
  });
});
