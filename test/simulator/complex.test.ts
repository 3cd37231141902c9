/**
 * Complex numbers on the host and the simulator, beyond the corpus (test/corpus/valid/complex_cmath.ts):
 * Complex64Array / Complex128Array (zero-copy views of interleaved parts, CSR056), complex launch
 * arguments (`{ re, im }` scalars, CSR029), device arrays, console.log, device functions taking and
 * returning complex values, and the special values of the functions.
 */
import * as assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { c128, c64, Complex128Array, Complex64Array, configureSimulator, cuda, CudaScriptError } from "cudascript";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ print: (t) => process.stdout.write(t) }));

const art = compileSource(`
import { cuda, c64, c128, f64, type Array1D, type Array2D } from "cudascript";

const scaleBy = cuda.device((z: c128, s: c128): c128 => cuda.complex.mul(z, s));

export const scale = cuda.jit((z: Array1D<c128>, s: c128, out: Array1D<c128>) => {
  const i = cuda.grid(1);
  if (i < z.length) out[i] = scaleBy(z[i], s);
});

export const show = cuda.jit((z: Array1D<c64>) => {
  const i = cuda.grid(1);
  if (i < z.length) console.log("z", z[i], "sqrt", cuda.complex.sqrt(z[i]));
});

export const across = cuda.jit((z: Array1D<c64>, m: Array2D<c128>, out: Array1D<c64>) => {
  const i = cuda.grid(1);
  let acc = cuda.complex.c64(0, 0);
  if (i < z.length) acc = cuda.complex.add(acc, z[i]);
  cuda.syncthreads();
  if (i < out.length) out[i] = cuda.selp(i > 0, cuda.complex.mul(acc, cuda.complex.c64(m[1][i])), z[i]);
});

export const special = cuda.jit((z: Array1D<c128>, out: Array1D<c128>) => {
  const i = cuda.grid(1);
  if (i < z.length) {
    out[3 * i] = cuda.complex.sqrt(z[i]);
    out[3 * i + 1] = cuda.complex.log(z[i]);
    out[3 * i + 2] = cuda.complex.div(cuda.complex.c128(1, 0), z[i]);
  }
});
`);

const parts = (a: Complex64Array | Complex128Array) => [...a].map((z) => [z.re, z.im]);

describe("Complex64Array / Complex128Array", () => {
  it("view interleaved parts without copying: from a length, an ArrayBuffer or a Float32Array", () => {
    const f = Float32Array.of(1, 2, 3, 4);
    const z = Complex64Array.wrap(f);
    assert.equal(z.length, 2);
    assert.deepEqual(z.get(1), { re: 3, im: 4 });
    z.set(0, { re: -1, im: 0.5 });
    assert.deepEqual([...f], [-1, 0.5, 3, 4]);
    assert.equal(z.buffer, f.buffer);
    const b = new Complex128Array(new ArrayBuffer(48));
    assert.equal(b.length, 3);
    assert.equal(new Complex64Array(5).data.length, 10);
    assert.deepEqual(parts(z), [[-1, 0.5], [3, 4]]);
  });

  it("refuse a bad source or index with CSR056 saying what to pass", () => {
    const csr056 = (re: RegExp) => (e: unknown) => e instanceof CudaScriptError && e.code === "CSR056" && re.test(e.message);
    assert.throws(() => new Complex64Array(-1), csr056(/whole number ≥ 0/));
    assert.throws(() => Complex64Array.wrap(Float32Array.of(1, 2, 3)), csr056(/even length/));
    assert.throws(() => new Complex128Array(new ArrayBuffer(24)), csr056(/whole number of 16-byte elements/));
    assert.throws(() => new Complex64Array(Float64Array.of(1, 2) as never), csr056(/interleaved Float32Array, got Float64Array/));
    assert.throws(() => new Complex64Array(2).get(2), csr056(/outside 0\.\.1/));
  });
});

describe("complex kernels on the simulator", () => {
  it("a c128 scalar parameter takes { re, im }; a device function takes and returns complex values", () => {
    const z = new Complex128Array(3);
    for (let i = 0; i < 3; i++) z.set(i, { re: i, im: 1 });
    const out = new Complex128Array(3);
    kernel(art, "scale").launch(1, 32)(z, { re: 0, im: 2 }, out);
    // (i + 1i)·2i = -2 + 2i·i
    assert.deepEqual(parts(out), [[-2, 0], [-2, 2], [-2, 4]]);
  });

  it("wrong complex arguments are CSR029 with what to pass", () => {
    const z = new Complex128Array(1), out = new Complex128Array(1);
    const csr029 = (re: RegExp) => (e: unknown) => e instanceof CudaScriptError && e.code === "CSR029" && re.test(e.message);
    assert.throws(() => kernel(art, "scale").launch(1, 1)(z, 2, out), csr029(/'s' .* is a c128 complex number: pass an object \{ re, im \}/));
    assert.throws(() => kernel(art, "scale").launch(1, 1)(new Float64Array(2), { re: 1, im: 0 }, out), csr029(/expects Complex128Array, got a Float64Array: wrap interleaved parts as Complex128Array\.wrap\(parts\)/));
    assert.throws(() => kernel(art, "scale").launch(1, 1)(new Complex64Array(1), { re: 1, im: 0 }, out), csr029(/expects Complex128Array, got a Complex64Array/));
    assert.throws(() => kernel(art, "scale").launch(1, 1)(cuda.deviceArray(1, c64), { re: 1, im: 0 }, out), csr029(/device array holds c64/));
  });

  it("device arrays: toDevice, deviceArray(n, c128), copyToHost into a Complex128Array", () => {
    const z = cuda.toDevice(Complex128Array.wrap(Float64Array.of(1, 1, 2, -1)));
    const out = cuda.deviceArray(2, c128);
    kernel(art, "scale").launch(1, 32)(z, { re: 2, im: 0 }, out);
    const host = out.copyToHost();
    assert.ok(host instanceof Complex128Array);
    assert.deepEqual(parts(host), [[2, 2], [4, -2]]);
    assert.throws(() => out.copyToHost(new Complex64Array(2) as never), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR029");
  });

  it("a complex local lives across a barrier (per-thread storage), Array2D<c128> device arrays, cuda.selp of complex values", () => {
    for (const sanitize of [false, true]) {
      configureSimulator({ sanitize });
      const m = cuda.deviceArray([2, 3], c128);
      const rows = new Complex128Array(6);
      for (let i = 0; i < 6; i++) rows.set(i, { re: i, im: 0 });
      m.copyToDevice(rows);
      const out = new Complex64Array(3);
      kernel(art, "across").launch(1, 3)(Complex64Array.wrap(Float32Array.of(1, 1, 2, 2, 3, 3)), m, out);
      // out[0] = z[0]; out[i] = z[i] * m[1][i] = (i+1)(1+i) * (3+i)
      assert.deepEqual(parts(out), [[1, 1], [8, 8], [15, 15]]);
    }
    configureSimulator({ sanitize: false });
  });

  it("console.log prints a complex value as Python does, (re+imj)", () => {
    let text = "";
    configureSimulator({ print: (t) => (text += t) });
    kernel(art, "show").launch(1, 2)(Complex64Array.wrap(Float32Array.of(-4, 0, 0.5, -2)));
    configureSimulator({ print: (t) => process.stdout.write(t) });
    // Python: cmath.sqrt(0.5-2j) = (1.1317139242778693-0.8836155308755134j)
    assert.equal(text, "z (-4+0j) sqrt (0+2j)\nz (0.5-2j) sqrt (1.13171-0.883616j)\n");
  });

  it("special values follow the documented formulas: sqrt(-4-0i) = 0-2i, log(0) = -inf, 1/0 = NaN", () => {
    const z = Complex128Array.wrap(Float64Array.of(-4, -0, 0, 0));
    const out = new Complex128Array(6);
    kernel(art, "special").launch(1, 2)(z, out);
    const o = parts(out);
    assert.deepEqual(o[0], [0, -2]);
    assert.deepEqual(o[4], [-Infinity, 0]);
    assert.ok(o[5]!.every(Number.isNaN));
  });
});
