// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. A property test of the launch fast path (runtime/src/gpu/launch-packer.ts) against the generic
// path it falls back to: kernels with random signatures (scalars of every dtype, 1-D/2-D/3-D arrays
// of every dtype), launched with random arguments — right ones (device arrays in C or F order,
// transposed, strided and offset views; host typed arrays and NDArrays) and wrong ones (another
// dtype or rank, one argument too few or too many, NaN or out-of-range integers, freed device
// arrays, strided 1-D views, plain arrays, aliased arrays…) — through the public
// `k.launch(g, b)(…)`, once with the fast path and once without: the driver must receive the same
// bytes, or both must throw the same CudaScriptError code and message. The seed is printed on failure.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { cuda, CudaScriptError, DeviceNDArray } from "cudascript";
import { complexDtypes, dtypes } from "cudascript/dist/dtypes";
import { Complex128Array, Complex64Array } from "cudascript/dist/complex-array";
import { setLaunchFastPath } from "cudascript/dist/host/kernel";
import type { KernelArtifact } from "@cudascript/compiler";
import { compileSource, gpuOnDouble, kernel } from "./helpers";

const SCALAR_DTYPES = ["f32", "f64", "i32", "u32", "i16", "u16", "i8", "u8", "bool", "i64", "u64", "f16", "c64", "c128"] as const;
const ARRAY_DTYPES = SCALAR_DTYPES;
type DTypeName = (typeof SCALAR_DTYPES)[number];
type Param = { readonly kind: "scalar"; readonly dtype: DTypeName } | { readonly kind: "array"; readonly dtype: DTypeName; readonly rank: 1 | 2 | 3 };

const TYPED_1D: Partial<Record<DTypeName, string>> = {
  f32: "Float32Array",
  f64: "Float64Array",
  i32: "Int32Array",
  u32: "Uint32Array",
  i16: "Int16Array",
  u16: "Uint16Array",
  i8: "Int8Array",
  u8: "Uint8Array",
  i64: "BigInt64Array",
  u64: "BigUint64Array",
  f16: "Float16Array",
};

function typeText(p: Param): string {
  if (p.kind === "scalar") return p.dtype;
  if (p.rank === 1) return TYPED_1D[p.dtype] ?? `Array1D<${p.dtype}>`;
  return `Array${p.rank}D<${p.dtype}>`;
}

function kernelSource(signatures: readonly (readonly Param[])[]): string {
  let text = `import { cuda, f32, f64, f16, i32, u32, i16, u16, i8, u8, i64, u64, bool, c64, c128, Array1D, Array2D, Array3D, Float16Array } from "cudascript";\n`;
  signatures.forEach((sig, k) => {
    text += `export const k${k} = cuda.jit((${sig.map((p, i) => `p${i}: ${typeText(p)}`).join(", ")}) => {});\n`;
  });
  return text;
}

const paramArb: fc.Arbitrary<Param> = fc.oneof(
  fc.record({ kind: fc.constant("scalar" as const), dtype: fc.constantFrom(...SCALAR_DTYPES) }),
  fc.record({ kind: fc.constant("array" as const), dtype: fc.constantFrom(...ARRAY_DTYPES), rank: fc.constantFrom(1 as const, 2 as const, 3 as const) }),
);

// ── argument recipes: values, or arrays made when the case runs (so both paths see the same ones) ──
type Layout = "C" | "F" | "transposed" | "strided" | "offset";
type Recipe =
  | { readonly t: "value"; readonly v: unknown }
  | { readonly t: "device"; readonly dtype: DTypeName; readonly rank: number; readonly layout: Layout; readonly freed: boolean; readonly pool: number; readonly n: number }
  | { readonly t: "host"; readonly dtype: DTypeName; readonly rank: number; readonly n: number }
  /** The same array as an earlier argument (aliasing: refused on the GPU, CSR045), or as the one made for `instead`. */
  | { readonly t: "alias"; readonly j: number; readonly instead: Recipe };

const INT_RANGE: Partial<Record<DTypeName, [number, number]>> = {
  i32: [-2147483648, 2147483647],
  u32: [0, 4294967295],
  i16: [-32768, 32767],
  u16: [0, 65535],
  i8: [-128, 127],
  u8: [0, 255],
};
const WRONG_ANY = fc.constantFrom<unknown>(undefined, null, "1", [1, 2], {}, 1n, Symbol.for("x"));

/** A value the generic path accepts for a scalar of `dtype` (`right`), or one it may refuse. */
function scalarValueArb(dtype: DTypeName, right: boolean): fc.Arbitrary<unknown> {
  const range = INT_RANGE[dtype];
  if (range) {
    const [lo, hi] = range;
    return right
      ? fc.oneof({ arbitrary: fc.integer({ min: lo, max: hi }), weight: 6 }, { arbitrary: fc.constantFrom<unknown>(lo, hi, -0, 0), weight: 2 })
      : fc.oneof(fc.constantFrom<unknown>(lo - 1, hi + 1, 0.5, -1.5, NaN, Infinity, -Infinity, 2 ** 53, true), WRONG_ANY);
  }
  switch (dtype) {
    case "f32":
    case "f64":
    case "f16":
      return right ? fc.oneof({ arbitrary: fc.double(), weight: 6 }, { arbitrary: fc.constantFrom<unknown>(NaN, -0, Infinity, 65520, 1e-8, 3.4e39), weight: 2 }) : fc.oneof(fc.constant<unknown>(true), WRONG_ANY);
    case "bool":
      return right ? fc.constantFrom<unknown>(true, false, 0, 1, -0) : fc.constantFrom<unknown>(2, -1, 0.5, "true", null, undefined, 1n, NaN);
    case "i64":
    case "u64": {
      const [lo, hi] = dtype === "i64" ? [-(2n ** 63n), 2n ** 63n - 1n] : [0n, 2n ** 64n - 1n];
      return right
        ? fc.oneof({ arbitrary: fc.bigInt({ min: lo, max: hi }), weight: 6 }, { arbitrary: fc.constantFrom<unknown>(lo, hi, 0n), weight: 2 })
        : fc.oneof(fc.constantFrom<unknown>(lo - 1n, hi + 1n, 5, 2 ** 60, NaN), WRONG_ANY);
    }
    default: // c64 / c128
      return right ? fc.record({ re: fc.double(), im: fc.double() }) : fc.oneof(fc.constantFrom<unknown>(1, { re: 1 }, { re: 1, im: "2" }), WRONG_ANY);
  }
}

const otherThan = <T>(values: readonly T[], v: T) => fc.constantFrom(...values.filter((x) => x !== v));
const LAYOUTS: readonly Layout[] = ["C", "C", "C", "F", "transposed", "strided", "offset"];

function deviceRecipe(dtype: fc.Arbitrary<DTypeName>, rank: fc.Arbitrary<number>, freed: boolean): fc.Arbitrary<Recipe> {
  return fc.record({
    t: fc.constant("device" as const),
    dtype,
    rank,
    layout: fc.constantFrom(...LAYOUTS),
    freed: fc.constant(freed),
    pool: fc.integer({ min: 0, max: 1 }), // two arguments with the same recipe and pool are one array: aliasing
    n: fc.integer({ min: 1, max: 3 }),
  });
}

/** An argument for `p` that the generic path accepts (`right`; a strided 1-D view or aliased arrays aside), or a wrong one. */
function argArb(p: Param, right: boolean): fc.Arbitrary<Recipe> {
  const value = (arb: fc.Arbitrary<unknown>) => arb.map((v): Recipe => ({ t: "value", v }));
  if (p.kind === "scalar") return right ? value(scalarValueArb(p.dtype, true)) : fc.oneof(value(scalarValueArb(p.dtype, false)), deviceRecipe(fc.constant("f32"), fc.constant(1), false));
  const ownDtype = p.dtype === "bool" ? fc.constantFrom<DTypeName>("bool", "u8") : fc.constant(p.dtype);
  if (right)
    return fc.oneof(
      { arbitrary: deviceRecipe(ownDtype, fc.constant(p.rank), false), weight: 6 },
      { arbitrary: fc.record({ t: fc.constant("alias" as const), j: fc.nat(), instead: deviceRecipe(ownDtype, fc.constant(p.rank), false) }), weight: 2 },
      { arbitrary: fc.record({ t: fc.constant("host" as const), dtype: ownDtype, rank: fc.constant(p.rank), n: fc.integer({ min: 1, max: 3 }) }), weight: 1 },
    );
  return fc.oneof(
    deviceRecipe(otherThan(ARRAY_DTYPES, p.dtype), fc.constant(p.rank), false),
    deviceRecipe(ownDtype, otherThan([1, 2, 3], p.rank), false),
    deviceRecipe(ownDtype, fc.constant(p.rank), true),
    fc.record({ t: fc.constant("host" as const), dtype: otherThan(ARRAY_DTYPES, p.dtype), rank: fc.constantFrom(1, 2, 3), n: fc.integer({ min: 1, max: 3 }) }),
    value(fc.oneof(scalarValueArb("f32", true), WRONG_ANY)),
  );
}

/** Arguments for a signature: all right, or one wrong, or one too few or too many. */
function argsArb(sig: readonly Param[]): fc.Arbitrary<Recipe[]> {
  const withWrong = (wrong: number) => fc.tuple(...sig.map((p, i) => argArb(p, i !== wrong))).map((a) => [...a]);
  const right = withWrong(-1);
  return fc.oneof(
    { arbitrary: right, weight: 6 },
    { arbitrary: fc.integer({ min: 0, max: Math.max(sig.length - 1, 0) }).chain(withWrong), weight: 6 },
    { arbitrary: right.map((a) => a.slice(0, -1)), weight: 1 },
    { arbitrary: right.map((a): Recipe[] => [...a, { t: "value", v: 1 }]), weight: 1 },
  );
}

function dtypeObject(name: DTypeName): any {
  return name === "c64" || name === "c128" ? complexDtypes[name] : dtypes[name];
}

const shapeOf = (rank: number, n: number) => [n + 1, n, 2].slice(0, rank);

/** The arrays of one case, made once and passed to both paths. */
class CaseArrays {
  private readonly pool = new Map<string, any>();
  private readonly made: any[] = [];
  private make<T>(a: T): T {
    this.made.push(a);
    return a;
  }
  materialize(r: Recipe, earlier: readonly unknown[]): unknown {
    if (r.t === "value") return r.v;
    if (r.t === "alias") {
      const want = r.instead as Extract<Recipe, { t: "device" }>;
      const arrays = earlier.filter((a) => a instanceof DeviceNDArray && a.dtype.name === want.dtype && a.ndim === want.rank);
      return arrays.length ? arrays[r.j % arrays.length] : this.materialize(r.instead, earlier);
    }
    const dt = dtypeObject(r.dtype);
    if (r.t === "host") {
      const shape = shapeOf(r.rank, r.n);
      const size = shape.reduce((a, b) => a * b, 1);
      const data =
        r.dtype === "c64" ? new Complex64Array(size) : r.dtype === "c128" ? new Complex128Array(size) : r.dtype === "bool" ? new Uint8Array(size) : new (dtypes[r.dtype].arrayType as any)(size);
      return r.rank === 1 ? data : cuda.ndarray(data, shape);
    }
    // Keyed by dtype, rank and pool only: two arguments of one dtype and rank often share an array.
    const key = `${r.dtype} ${r.rank} ${r.pool}`;
    const hit = this.pool.get(key);
    if (hit) return hit;
    const shape = shapeOf(r.rank, r.n);
    let a: any;
    switch (r.layout) {
      case "C":
        a = this.make(cuda.deviceArray(shape as any, dt));
        break;
      case "F":
        a = this.make(cuda.deviceArray(shape as any, dt, { order: "F" }));
        break;
      case "transposed":
        a = this.make(cuda.deviceArray([...shape].reverse() as any, dt)).transpose();
        break;
      case "strided": // every second element (1-D) or row (N-D)
        a = this.make(cuda.deviceArray([shape[0]! * 2, ...shape.slice(1)] as any, dt)).slice(0, shape[0]! * 2, 2);
        break;
      case "offset":
        a = this.make(cuda.deviceArray([shape[0]! + 1, ...shape.slice(1)] as any, dt)).slice(1);
        break;
    }
    if (r.freed) a.free();
    this.pool.set(key, a);
    return a;
  }
  free(): void {
    for (const a of this.made) a.free();
  }
}

type Outcome = { readonly error: string } | { readonly params: readonly string[] };

describe("the launch fast path against the generic path (libcuda TEST DOUBLE)", () => {
  it("random signatures and arguments: the same packed bytes for accepted arguments, the same code and message for rejected ones", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double, backend } = env;
    const seed = Number(process.env.CUDASCRIPT_PROPERTY_SEED ?? Date.now() % 2 ** 31);
    // Every dtype at every rank in two fixed kernels, and random ones.
    const signatures: Param[][] = [
      SCALAR_DTYPES.map((dtype): Param => ({ kind: "scalar", dtype })),
      ARRAY_DTYPES.flatMap((dtype) => [1, 2, 3].map((rank): Param => ({ kind: "array", dtype, rank: rank as 1 | 2 | 3 }))).filter((_, i) => i % 2 === seed % 2),
      // The usual kernel: several arrays of one dtype (so aliasing can happen) and a size.
      [
        { kind: "array", dtype: "f32", rank: 1 },
        { kind: "array", dtype: "f32", rank: 1 },
        { kind: "array", dtype: "f64", rank: 2 },
        { kind: "array", dtype: "f64", rank: 2 },
        { kind: "scalar", dtype: "i32" },
      ],
      ...fc.sample(fc.array(paramArb, { minLength: 0, maxLength: 6 }), { seed, numRuns: 14 }),
    ];
    let artifact: KernelArtifact;
    try {
      artifact = compileSource(kernelSource(signatures));
    } catch (e) {
      throw new Error(`seed ${seed}: the random kernels do not compile: ${(e as Error).message}\n${kernelSource(signatures)}`);
    }
    const launchesThroughBackend = { count: 0 };
    const genericLaunch = backend.launch.bind(backend);
    backend.launch = (...a: Parameters<typeof backend.launch>) => {
      launchesThroughBackend.count++;
      return genericLaunch(...a);
    };
    const tally = { fast: 0, accepted: 0, rejected: 0 };

    const run = (k: number, args: readonly unknown[], hostParams: ReadonlySet<number>, fast: boolean): Outcome => {
      setLaunchFastPath(fast);
      double.clearLog();
      const before = launchesThroughBackend.count;
      try {
        kernel(artifact, `k${k}`).launch(1, 32)(...args);
      } catch (e) {
        if (!(e instanceof CudaScriptError)) throw e;
        return { error: `${e.code}: ${e.message}` };
      } finally {
        setLaunchFastPath(true);
      }
      if (fast && launchesThroughBackend.count === before) tally.fast++;
      const launches = double.calls("cuLaunchKernel");
      assert.equal(launches.length, 1, "one launch");
      // A host array is copied to a new device array per launch: its address differs between runs.
      return { params: (launches[0]!.params as string[]).map((hex, i) => (hostParams.has(i) ? "<host array's copy>" : hex)) };
    };

    const property = fc.property(
      fc.integer({ min: 0, max: signatures.length - 1 }).chain((k) => argsArb(signatures[k]!).map((recipes) => ({ k, recipes }))),
      ({ k, recipes }) => {
        const arrays = new CaseArrays();
        try {
          const args: unknown[] = [];
          for (const r of recipes) args.push(arrays.materialize(r, args));
          // The C parameter of each host array's pointer (params: pointer, then extents and strides).
          const hostParams = new Set<number>();
          let c = 0;
          signatures[k]!.forEach((p, i) => {
            if (recipes[i]?.t === "host") hostParams.add(c);
            c += p.kind === "scalar" ? 1 : p.rank === 1 ? 2 : 1 + 2 * p.rank;
          });
          const fastOutcome = run(k, args, hostParams, true);
          const genericOutcome = run(k, args, hostParams, false);
          assert.deepEqual(fastOutcome, genericOutcome, `kernel k${k}(${signatures[k]!.map(typeText).join(", ")})`);
          if ("error" in genericOutcome) tally.rejected++;
          else tally.accepted++;
        } finally {
          cuda.synchronize();
          arrays.free();
        }
      },
    );
    try {
      fc.assert(property, { seed, numRuns: Number(process.env.CUDASCRIPT_PROPERTY_RUNS ?? 400) });
    } catch (e) {
      throw new Error(`launch fast path property failed (seed ${seed}; rerun with CUDASCRIPT_PROPERTY_SEED=${seed}):\n${(e as Error).message}`);
    } finally {
      backend.launch = genericLaunch;
    }
    t.diagnostic(`seed ${seed}: ${tally.accepted} accepted (${tally.fast} through the fast path), ${tally.rejected} rejected`);
    // A property that never took the fast path, or never compared an error, would prove nothing.
    assert.ok(tally.fast > 10 && tally.fast > tally.accepted / 8, `seed ${seed}: only ${tally.fast} of ${tally.accepted} accepted launches took the fast path`);
    assert.ok(tally.rejected > 10, `seed ${seed}: only ${tally.rejected} rejected launches compared`);
  });
});
