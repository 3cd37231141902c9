/**
 * Every libdevice function of the simulator (runtime/src/simulator/libdevice) against its fixtures
 * (test/libdevice/fixtures, references from mpmath / exact rational arithmetic): the maximum ulp error
 * is within CUDA's documented bound (bit-exact where the table says exact), and NaN/±Inf/−0 are the
 * references'. Writes test/libdevice/results/simulator.json, which docs/libdevice.md is generated from.
 */
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { LIBDEVICE_FUNCTIONS } from "@cudascript/compiler/dist/intrinsics/libdevice-table.js";
import { LIBDEVICE } from "cudascript/dist/simulator/libdevice/index";
import { decode, EXCEPTIONS, formatArgs, judge, record, loadFixtures, writeResults, type FunctionResult, type Value } from "./fixtures";

test("the simulator's libdevice is within CUDA's documented accuracy on every fixture", () => {
  const fixtures = loadFixtures();
  const results = new Map<string, FunctionResult>();
  const problems: string[] = [];
  for (const fn of LIBDEVICE_FUNCTIONS) {
    const fixture = fixtures.get(fn.name);
    const impl = LIBDEVICE[fn.name];
    if (!fixture || fixture.cases.length === 0) {
      problems.push(`${fn.name}: no fixtures`);
      continue;
    }
    if (!impl) {
      problems.push(`${fn.name}: no implementation`);
      continue;
    }
    const r: FunctionResult = { maxUlp: 0, cases: fixture.cases.length, failures: [] };
    for (const [encodedArgs, encodedWant] of fixture.cases) {
      const args = encodedArgs.map((a, i) => decode(a, fixture.params[i]!));
      const want = encodedWant.map((w, i) => decode(w, fixture.results[i]!));
      let got: Value[];
      try {
        const out = impl(...args);
        got = Array.isArray(out) ? out : [out];
      } catch (e) {
        r.failures.push(`${fn.name}(${formatArgs(args)}) threw ${(e as Error).message}`);
        continue;
      }
      want.forEach((w, i) => {
        const v = judge(fn, args, got[i]!, w, fixture.results[i]!);
        record(r, v);
        const exception = EXCEPTIONS.simulator[fn.name];
        if (!v.ok && exception && v.ulps <= exception.maxUlp) return;
        if (!v.ok) r.failures.push(`${fn.name}(${formatArgs(args)})${want.length > 1 ? `[${i}]` : ""}: ${v.why}`);
      });
    }
    results.set(fn.name, r);
    problems.push(...r.failures.slice(0, 3));
  }
  writeResults("simulator.json", results);
  const byFamily = new Map<string, number>();
  for (const fn of LIBDEVICE_FUNCTIONS) {
    const r = results.get(fn.name);
    if (r) byFamily.set(fn.family, Math.max(byFamily.get(fn.family) ?? 0, r.maxUlp));
  }
  for (const [name, e] of Object.entries(EXCEPTIONS.simulator)) console.log(`documented exception: ${name} measured ${results.get(name)?.maxUlp} ulp (accepted up to ${e.maxUlp}): ${e.why}`);
  console.log(`libdevice simulator, max ulp from the correctly rounded reference by family (ulp-bounded cases): ${[...byFamily].map(([f, u]) => `${f} ${u}`).join(", ")}`);
  const failing = [...results].filter(([, r]) => r.failures.length > 0).map(([n, r]) => `${n} (${r.failures.length})`);
  assert.equal(problems.length, 0, `${failing.length} functions fail: ${failing.join(", ")}\n${problems.slice(0, 60).join("\n")}`);
});

test("LIBDEVICE is one frozen object with exactly the table's functions, and follows the value conventions", () => {
  assert.ok(Object.isFrozen(LIBDEVICE));
  assert.deepEqual(Object.keys(LIBDEVICE).sort(), LIBDEVICE_FUNCTIONS.map((f) => f.name).sort());
  // tuple results are arrays in the table's order; i64 results bigints, i16 results wrapped to 16 bits
  assert.deepEqual(LIBDEVICE.sincos!(0), [0, 1]);
  assert.deepEqual(LIBDEVICE.frexp!(8), [0.5, 4]);
  assert.deepEqual(LIBDEVICE.remquof!(7, 2), [-1, 4]);
  assert.deepEqual(LIBDEVICE.modf!(-2.5), [-0.5, -2]);
  assert.equal(LIBDEVICE.double_as_longlong!(-0), -(2n ** 63n));
  assert.equal(LIBDEVICE.float2half_rn!(-2), -16384);
  assert.equal(LIBDEVICE.umax!(-1, 1), -1, "unsigned max of 0xffffffff and 1, with Numba's signed result");
  assert.equal(LIBDEVICE.fadd_ru!(1, Math.fround(2 ** -30)), Math.fround(1 + 2 ** -23));
});
