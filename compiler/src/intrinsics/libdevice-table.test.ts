import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { LIBDEVICE_FUNCTIONS, libdeviceFunction, type LibdeviceType } from "./libdevice-table";

const C_TYPES: Record<string, LibdeviceType> = { float: "f32", double: "f64", short: "i16", int: "i32", "long long": "i64" };
const root = path.resolve(__dirname, "../../..");

test("317 entries, unique names, frozen, Numba's names without __nv_", () => {
  assert.equal(LIBDEVICE_FUNCTIONS.length, 317);
  assert.equal(new Set(LIBDEVICE_FUNCTIONS.map((f) => f.name)).size, 317);
  assert.ok(Object.isFrozen(LIBDEVICE_FUNCTIONS));
  for (const f of LIBDEVICE_FUNCTIONS) {
    assert.ok(Object.isFrozen(f) && Object.isFrozen(f.params) && Object.isFrozen(f.accuracy), f.name);
    assert.doesNotMatch(f.name, /^__nv_/);
    assert.equal(libdeviceFunction(f.name), f);
    assert.ok(f.doc.length > 0 && !f.doc.includes("\n"), f.name);
  }
  assert.equal(libdeviceFunction("nan"), undefined, "nan/nanf are excluded, as in Numba");
});

test("every prototype parses and matches params and results (pointer outputs after the return value)", () => {
  for (const f of LIBDEVICE_FUNCTIONS) {
    const m = /^(void|float|double|short|int|long long) (__nv_\w+)\((.*)\)$/.exec(f.prototype);
    assert.ok(m, `${f.name}: ${f.prototype}`);
    assert.equal(m[2], `__nv_${f.name}`);
    const args = m[3].split(", ").map((a) => {
      const am = /^(float|double|short|int|long long)(\*?) (\w+)$/.exec(a);
      assert.ok(am, `${f.name}: argument ${a}`);
      return { type: C_TYPES[am[1]]!, pointer: am[2] === "*", name: am[3] };
    });
    assert.deepEqual(args.filter((a) => !a.pointer).map((a) => ({ name: a.name, type: a.type })), f.params, f.name);
    const results = [...(m[1] === "void" ? [] : [C_TYPES[m[1]]]), ...args.filter((a) => a.pointer).map((a) => a.type)];
    assert.deepEqual(results, f.results, f.name);
    assert.ok(f.results.length >= 1);
  }
  assert.equal(libdeviceFunction("sincos")!.prototype, "void __nv_sincos(double x, double* sptr, double* cptr)");
  assert.deepEqual(libdeviceFunction("frexp")!.results, ["f64", "i32"]);
  assert.deepEqual(libdeviceFunction("remquof")!.results, ["f32", "i32"]);
  assert.deepEqual(libdeviceFunction("float2int_rn")!.params, [{ name: "x", type: "f32" }]);
});

test("every accuracy is machine-checkable: exact, or ranges ending in one without a domain", () => {
  for (const f of LIBDEVICE_FUNCTIONS) {
    const a = f.accuracy;
    assert.ok(a.source.length > 0, f.name);
    if ("exact" in a) continue;
    assert.ok(a.ranges.length > 0, f.name);
    const last = a.ranges[a.ranges.length - 1]!;
    assert.ok(last.domain === undefined && last.aboveOrder === undefined, `${f.name}: the last range holds everywhere else`);
    for (const r of a.ranges) {
      if (r.param) assert.ok(f.params.some((p) => p.name === r.param), f.name);
      const b = r.bound;
      assert.ok(("ulp" in b && b.ulp >= 0) || ("absolute" in b && b.absolute > 0) || "unbounded" in b, f.name);
    }
  }
});

test("the committed table is what scripts/libdevice/gen-table.mjs writes", () => {
  const gen = path.join(root, "scripts/libdevice/gen-table.mjs");
  if (!fs.existsSync(gen)) return; // an installed package has no scripts
  const r = spawnSync(process.execPath, [gen, "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
});
