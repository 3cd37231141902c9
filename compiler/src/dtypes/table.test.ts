import { strict as assert } from "node:assert";
import * as path from "node:path";
import { test } from "node:test";
import { DTYPE_NAMES, DTYPES, isDTypeName, wrapBigInt, wrapNumber, wrapNumberJs, type DTypeName } from "./table";
import { packageSources } from "../../../test/dist/support/source-files";

const INT_EDGES = [0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535, 65536, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 3, -(2 ** 53), 1.5, -2.75, NaN, Infinity, -Infinity];

test("every record is consistent: bytes are bits / 8, complex parts are half the width, integer ranges span 2^bits", () => {
  for (const d of DTYPE_NAMES) {
    const r = DTYPES[d];
    assert.equal(r.name, d);
    assert.equal(r.bytes * 8, r.bits, d);
    assert.ok(Object.isFrozen(r), `${d} is frozen`);
    if (r.kind === "complex") assert.equal(DTYPES[r.part].bits * 2, r.bits, d);
    else assert.equal(r.part, d);
    if (r.kind === "int") assert.equal(r.max! - r.min! + 1n, 1n << BigInt(r.bits), d);
    else if (r.kind !== "bool") assert.equal(r.min, undefined, d);
  }
  assert.ok(isDTypeName("c128") && !isDTypeName("float") && !isDTypeName("toString"));
});

test("the typed arrays a record names hold exactly its bytes (host and simulator storage)", () => {
  for (const d of DTYPE_NAMES) {
    const r = DTYPES[d];
    const sim = (globalThis as Record<string, unknown>)[r.simArray] as { BYTES_PER_ELEMENT: number };
    assert.equal(sim.BYTES_PER_ELEMENT * (r.kind === "complex" ? 2 : 1), r.bytes, `${d}: ${r.simArray}`);
    const host = (globalThis as Record<string, unknown>)[r.hostArray] as { BYTES_PER_ELEMENT: number } | undefined;
    // Float16Array (Node 20/22: the runtime's polyfill) and the complex arrays are the runtime's classes.
    if (host) assert.equal(host.BYTES_PER_ELEMENT, r.bytes, `${d}: ${r.hostArray}`);
    else assert.ok(r.kind === "complex" || d === "f16", `${d}: ${r.hostArray} is no global class`);
  }
});

test("wrapNumber stores what the dtype's typed array stores, and wrapNumberJs computes the same", () => {
  for (const d of DTYPE_NAMES.filter((d) => DTYPES[d].kind === "int" && DTYPES[d].bits <= 32)) {
    const ctor = (globalThis as Record<string, unknown>)[DTYPES[d].hostArray] as { of(v: number): ArrayLike<number> };
    const js = new Function("x", `return ${wrapNumberJs(d, "x")};`) as (x: number) => number;
    for (const v of INT_EDGES) {
      assert.equal(wrapNumber(d, v), ctor.of(v)[0], `${d} ${v}`);
      assert.equal(js(v), wrapNumber(d, v), `${d} ${v} (JavaScript text)`);
    }
  }
  assert.equal(wrapBigInt("i64", 2n ** 63n), -(2n ** 63n));
  assert.equal(wrapBigInt("u64", -1n), 2n ** 64n - 1n);
});

/**
 * One place per fact: a source file (outside this folder and tests) that keys a table by dtype names
 * (`{ i8: …, u8: …, i16: …, … }`) is a copy of the dtype table. The exceptions are type-level.
 */
test("no other source file keeps a table keyed by dtype names", () => {
  const repo = path.resolve(__dirname, "..", "..", "..");
  const ALLOWED = new Map([
    // The public `TypedArrayOf` type: a type-level map (TypeScript cannot derive a type from the table's strings).
    ["runtime/src/dtypes.ts", "type-level map"],
  ]);
  const key = /(?:^|[{,]\s*|^\s+)(?:i8|u8|i16|u16|i32|u32|i64|u64|f16|f32|f64|c64|c128)\s*:/gm;
  const offenders: string[] = [];
  for (const { rel, text } of packageSources(repo)) {
    if (rel.startsWith("compiler/src/dtypes/") || ALLOWED.has(rel)) continue;
    const n = (text.match(key) ?? []).length;
    if (n >= 4) offenders.push(`${rel} (${n} dtype keys)`);
  }
  assert.deepEqual(offenders, [], "derive these from compiler/src/dtypes/table.ts");
});

test("every dtype's record names its Numba type", () => {
  const numba: Record<string, DTypeName> = {};
  for (const d of DTYPE_NAMES) numba[DTYPES[d].numba] = d;
  assert.equal(numba.float16, "f16");
  assert.equal(numba.complex128, "c128");
  assert.equal(numba.boolean, "bool");
  assert.equal(Object.keys(numba).length, DTYPE_NAMES.length);
});
