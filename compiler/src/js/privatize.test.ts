import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { KernelChecker } from "../checker/checker";
import { emitSimulatorModule } from "./emit";

function kernels(src: string) {
  const checker = new KernelChecker();
  const file = path.join(__dirname, "__privatize_test.ts");
  checker.setFileText(file, `import { cuda, f32, f64, i32, u32, Array2D } from "cudascript";\n${src}`);
  const r = checker.checkFile(file);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  const m = emitSimulatorModule(r.module);
  return { m, info: Object.fromEntries(m.kernels.map((k) => [k.name, k])) };
}

/** `name:op` for each privatizable parameter of each kernel. */
function priv(src: string): Record<string, string[]> {
  const { info } = kernels(src);
  return Object.fromEntries(Object.entries(info).map(([k, i]) => [k, (i.privatize ?? []).map((p) => `${p.name}:${p.op}`)]));
}

describe("privatization analysis (which global arrays only take result-unused commutative atomics)", () => {
  it("one commutative class, results unused: privatizable (add/sub together; bitwise; max/min; floats)", () => {
    assert.deepEqual(
      priv(`
export const hist = cuda.jit((d: Uint8Array, h: Uint32Array) => { const i = cuda.grid(1); if (i < d.length) cuda.atomic.add(h, d[i], 1); });
export const addSub = cuda.jit((h: Int32Array) => { const i = cuda.grid(1); cuda.atomic.add(h, i & 3, 2); cuda.atomic.sub(h, i & 7, 1); });
export const bits = cuda.jit((o: Uint32Array, a: Int32Array, x: Uint32Array) => { const i = cuda.grid(1); cuda.atomic.or(o, 0, i); cuda.atomic.and(a, 1, ~i); cuda.atomic.xor(x, 2, i); });
export const extremes = cuda.jit((mx: Int32Array, mn: Float32Array) => { const i = cuda.grid(1); cuda.atomic.max(mx, 0, i); cuda.atomic.min(mn, 0, i * 0.5); });
export const floats = cuda.jit((s: Float32Array, d: Float64Array, m: Array2D<u32>) => { const i = cuda.grid(1); cuda.atomic.add(s, 0, 0.5); cuda.atomic.add(d, 1, 0.25); cuda.atomic.add(m, [i & 1, 0], 1); if (m.shape[0] > 2) cuda.atomic.add(m, [0, 1], 1); });
`),
      {
        hist: ["h:add"],
        addSub: ["h:add"],
        bits: ["o:or", "a:and", "x:xor"],
        extremes: ["mx:max", "mn:min"],
        floats: ["s:add", "d:add", "m:add"],
      },
    );
  });

  it("reads, writes, used results, exch / CAS / inc / dec, or mixed classes: not privatizable", () => {
    assert.deepEqual(
      priv(`
export const read = cuda.jit((d: Uint8Array, h: Uint32Array, out: Uint32Array) => { const i = cuda.grid(1); cuda.atomic.add(h, d[i], 1); out[i] = h[0]; });
export const write = cuda.jit((h: Uint32Array) => { const i = cuda.grid(1); cuda.atomic.add(h, 1, 1); if (i === 0) h[0] = 5; });
export const used = cuda.jit((h: Uint32Array, out: Uint32Array) => { const i = cuda.grid(1); out[i] = cuda.atomic.add(h, 0, 1); });
export const usedInIf = cuda.jit((h: Uint32Array, out: Uint32Array) => { const i = cuda.grid(1); if (cuda.atomic.add(h, 0, 1) > 3) out[i] = 1; });
export const indexFromItself = cuda.jit((h: Uint32Array) => { cuda.atomic.add(h, h[0] & 7, 1); });
export const exch = cuda.jit((h: Int32Array) => { cuda.atomic.exch(h, 0, 1); });
export const cas = cuda.jit((h: Int32Array) => { cuda.atomic.compareAndSwap(h, 0, 0, 1); });
export const incDec = cuda.jit((a: Uint32Array, b: Uint32Array) => { cuda.atomic.inc(a, 0, 9); cuda.atomic.dec(b, 0, 9); });
export const mixed = cuda.jit((h: Int32Array) => { const i = cuda.grid(1); cuda.atomic.add(h, 0, 1); cuda.atomic.max(h, 1, i); });
export const andOr = cuda.jit((h: Uint32Array) => { const i = cuda.grid(1); cuda.atomic.and(h, 0, i); cuda.atomic.or(h, 1, i); });
`),
      { read: [], write: [], used: [], usedInIf: [], indexFromItself: [], exch: [], cas: [], incDec: [], mixed: [], andOr: [] },
    );
  });

  it("arrays passed to device functions count as accesses: the callee's use decides (transitively)", () => {
    assert.deepEqual(
      priv(`
const bump = cuda.device((h: Uint32Array, i: i32): void => { cuda.atomic.add(h, i & 255, 1); });
const bumpTwice = cuda.device((h: Uint32Array, i: i32): void => { bump(h, i); bump(h, i + 1); });
const peek = cuda.device((h: Uint32Array): u32 => h[0]);
const bumpAndGet = cuda.device((h: Uint32Array): u32 => cuda.atomic.add(h, 0, 1));
const bumpMax = cuda.device((h: Uint32Array, v: u32): void => { cuda.atomic.max(h, 0, v); });
export const viaDevice = cuda.jit((h: Uint32Array) => { bumpTwice(h, cuda.grid(1)); });
export const deviceReads = cuda.jit((h: Uint32Array, out: Uint32Array) => { bump(h, 1); out[0] = peek(h); });
export const deviceUsesResult = cuda.jit((h: Uint32Array) => { bumpAndGet(h); });
export const deviceMixesClasses = cuda.jit((h: Uint32Array) => { bump(h, 1); bumpMax(h, 3); });
`),
      { viaDevice: ["h:add"], deviceReads: [], deviceUsesResult: [], deviceMixesClasses: [] },
    );
  });

  it("every atomically updated parameter is reported (for the worker-count tuning), privatizable or not", () => {
    const { info } = kernels(`
export const k = cuda.jit((d: Uint8Array, h: Uint32Array, c: Uint32Array, out: Uint32Array) => { const i = cuda.grid(1); cuda.atomic.add(h, d[i], 1); out[i] = cuda.atomic.add(c, 0, 1); });
export const none = cuda.jit((a: Float32Array) => { a[0] = 1; });`);
    assert.deepEqual(info.k!.atomics, [1, 2]);
    assert.deepEqual(info.k!.privatize?.map((p) => p.param), [1]);
    assert.deepEqual(info.none!.atomics, []);
  });

  it("atomics on a privatizable array choose their helper per launch (L.priv); others keep the shared-memory helper", () => {
    const { m } = kernels(`
export const k = cuda.jit((d: Uint8Array, h: Uint32Array, c: Uint32Array, out: Uint32Array) => { const i = cuda.grid(1); cuda.atomic.add(h, d[i], 1); out[i] = cuda.atomic.add(c, 0, 1); });`);
    assert.match(m.source, /const h\$\d+\$at_add = L\.priv !== undefined && L\.priv\[1\] === true \? \$at_add_u32_p : \$at_add_u32_g;/);
    assert.match(m.source, /h\$\d+\$at_add\(h\$\d+, /);
    assert.match(m.source, /\$at_add_u32_g\(c\$\d+, /);
  });
});
