// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. The launch fast path (runtime/src/gpu/launch-packer.ts) where the property test
// (double-launch-packer.test.ts) does not reach: launches made while a launch of the same kernel is
// being packed (from a Proxy argument's trap), state that changes between two launches of one
// configured launcher (a freed array, a destroyed stream), and the launcher `k.launch(g, b)` reuses.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f32 } from "cudascript";
import type { GpuBuffer } from "cudascript/dist/gpu/backend";
import { setLaunchFastPath } from "cudascript/dist/host/kernel";
import { compileSource, gpuOnDouble, kernel, leHex } from "./helpers";
import { throwsCode } from "../simulator/helpers";

const SOURCE = `
import { cuda, i32 } from "cudascript";
export const pair = cuda.jit((x: Float32Array, y: Float32Array, n: i32) => { const i = cuda.grid(1); if (i < n) x[i] = y[i]; });
`;

type DeviceArray = { readonly size: number };
const pointerHex = (d: DeviceArray) => leHex("pointer", (d as unknown as { buffer: GpuBuffer }).buffer.pointer);
const expected = (x: DeviceArray, y: DeviceArray, n: number) => [pointerHex(x), leHex("int", x.size), pointerHex(y), leHex("int", y.size), leHex("int", n)];

describe("the launch fast path (libcuda TEST DOUBLE)", () => {
  for (const how of ["through the same launcher", "through another launcher of the kernel"] as const)
    it(`a launch made while the same kernel's arguments are being packed (${how}) does not overwrite them`, (t) => {
      const env = gpuOnDouble(t);
      if (!env) return;
      const { double } = env;
      const k = kernel(compileSource(SOURCE), "pair");
      const [a, b, c, d] = [0, 1, 2, 3].map((i) => cuda.deviceArray(8 + i, f32));
      const launcher = k.launch(1, 32);
      launcher(c, d, 1); // the fast path is set up
      let nested = false;
      // The second argument's first property (its device-array brand) is read after the first was packed.
      const y = new Proxy(b!, {
        get(target, property) {
          if (!nested) {
            nested = true;
            (how === "through the same launcher" ? launcher : k.launch(2, 32))(c, d, 3);
          }
          return Reflect.get(target, property);
        },
      });
      double.clearLog();
      launcher(a, y, 2);
      assert.ok(nested, "the trap ran");
      const launches = double.calls("cuLaunchKernel").map((e) => e.params);
      assert.deepEqual(launches, [expected(c!, d!, 3), expected(a!, b!, 2)], "the nested launch, then the outer one with its own arguments");
      cuda.synchronize();
      for (const x of [a, b, c, d]) x!.free();
    });

  it("between two launches of one configured launcher: a freed array is CSR010 (the same message as on the generic path) and a destroyed stream CSR014", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const k = kernel(compileSource(SOURCE), "pair");
    const stream = cuda.stream();
    const launcher = k.launch(1, 32, { stream });
    const [x, y] = [cuda.deviceArray(4, f32), cuda.deviceArray(4, f32)];
    launcher(x, y, 4);
    const errors: string[][] = [];
    for (const fast of [true, false]) {
      setLaunchFastPath(fast);
      try {
        const z = cuda.deviceArray(4, f32);
        launcher(z, y, 4);
        z.free();
        const messages: string[] = [];
        assert.throws(
          () => launcher(z, y, 4),
          (e: Error & { code?: string }) => (messages.push(`${e.code}: ${e.message}`), e.code === "CSR010"),
        );
        errors.push(messages);
      } finally {
        setLaunchFastPath(true);
      }
    }
    assert.equal(errors[0]![0], errors[1]![0], "the same message with and without the fast path");
    stream.synchronize();
    // Streams have no destroy() in the host API (the garbage collector's finalizer destroys them): the backend's.
    env.backend.destroyStream((stream as unknown as { handle: Parameters<typeof env.backend.destroyStream>[0] }).handle);
    throwsCode(() => launcher(x, y, 4), "CSR014", /this stream was destroyed/);
    x.free();
    y.free();
  });

  it("k.launch(g, b) returns the launcher it made while grid, block and options are the same; other ones are configured (and checked) anew", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const k = kernel(compileSource(SOURCE), "pair");
    const first = k.launch(4, 32);
    assert.equal(k.launch(4, 32), first);
    assert.equal(k.launch([4], [32, 1]), k.launch([4], [32, 1]), "tuples are compared by value");
    const dims = [4, 2] as [number, number];
    const fromTuple = k.launch(dims, 32);
    dims[1] = 3; // the caller changed its array: a new configuration
    assert.notEqual(k.launch(dims, 32), fromTuple);
    assert.notEqual(k.launch(4, 32, { sharedMem: 16 }), k.launch(4, 32), "options are part of the configuration");
    assert.equal(k.launch(4, 32, { sharedMem: 16 }), k.launch(4, 32, { sharedMem: 16 }));
    throwsCode(() => k.launch(4, 4096), "CSR008");
    throwsCode(() => k.launch(4, 32, null as never), "CSR007");
  });
});
