/**
 * The g++ emulation's libdevice (test/emulation/libdevice_emulation.hpp, included by cuda_emulation.hpp)
 * over the fixture inputs: a driver generated from the table reads every case on stdin, calls the
 * `__nv_*` function and prints the results. Each result is judged against the reference (CUDA's bound,
 * bit-exact where exact) and compared with the simulator: bit for bit where the table says exact, else
 * the largest ulp distance between the two is reported. Writes test/libdevice/results/emulation.json.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { LIBDEVICE_FUNCTIONS, type LibdeviceType } from "@cudascript/compiler/dist/intrinsics/libdevice-table.js";
import { LIBDEVICE } from "cudascript/dist/simulator/libdevice/index";
import { findGxx } from "../emulation/harness";
import { decode, EXCEPTIONS, formatArgs, judge, record, loadFixtures, ulpDistance, writeResults, type FunctionResult, type Value } from "./fixtures";

const EMULATION_DIR = path.resolve(__dirname, "../../emulation");
const C: Record<LibdeviceType, string> = { f64: "double", f32: "float", i32: "int", i64: "long long", i16: "short" };

function driverSource(): string {
  const cases = LIBDEVICE_FUNCTIONS.map((f) => {
    const m = /^(\w+(?: long)?) __nv_\w+\((.*)\)$/.exec(f.prototype)!;
    const returnsValue = m[1] !== "void";
    let p = 0;
    let o = 0;
    const reads: string[] = [];
    const args = m[2]!.split(", ").map((a) => {
      const [, type, pointer] = /^(float|double|short|int|long long)(\*?)/.exec(a)!;
      if (pointer) return `&o${o++}`;
      const t = f.params[p]!.type;
      reads.push(`const ${C[t]} a${p} = read_${t}();`);
      return `a${p++}`;
    });
    const outs = f.results.slice(returnsValue ? 1 : 0);
    const decls = outs.map((r, j) => `${C[r]} o${j};`).join(" ");
    const call = returnsValue ? `const ${C[f.results[0]!]} r = __nv_${f.name}(${args.join(", ")});` : `__nv_${f.name}(${args.join(", ")});`;
    const prints = [...(returnsValue ? [`write_${f.results[0]}(r);`] : []), ...outs.map((r, j) => `write_${r}(o${j});`)].join(" ");
    return `  if (name == "${f.name}") { ${reads.join(" ")} ${decls} ${call} ${prints} return; }`;
  });
  return `#include "cuda_emulation.hpp"
#include <cinttypes>
#include <iostream>
#include <string>
static std::string token() { std::string s; std::cin >> s; return s; }
static double read_f64() { return cs_libdevice::bits<double>((unsigned long long)std::stoull(token(), nullptr, 16)); }
static float read_f32() { return cs_libdevice::bits<float>((unsigned)std::stoul(token(), nullptr, 16)); }
static int read_i32() { return (int)std::stol(token()); }
static short read_i16() { return (short)std::stol(token()); }
static long long read_i64() { return std::stoll(token()); }
static void write_f64(double v) { std::printf(" %016llx", cs_libdevice::bits<unsigned long long>(v)); }
static void write_f32(float v) { std::printf(" %08x", cs_libdevice::bits<unsigned>(v)); }
static void write_i32(int v) { std::printf(" %d", v); }
static void write_i16(short v) { std::printf(" %d", (int)v); }
static void write_i64(long long v) { std::printf(" %lld", v); }
static void run(const std::string& name) {
${cases.join("\n")}
  std::printf(" unknown");
}
int main() {
  std::string name;
  while (std::cin >> name) { run(name); std::printf("\\n"); }
}
`;
}

test("the g++ emulation's libdevice is within CUDA's bounds on every fixture, and bit-exact with the simulator where exact", (t) => {
  const gxx = findGxx();
  if (!gxx) return t.skip("g++ not found");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-libdevice-"));
  try {
    fs.writeFileSync(path.join(dir, "driver.cpp"), driverSource());
    const exe = path.join(dir, "driver");
    const build = spawnSync(gxx, ["-std=c++20", "-O1", "-pthread", "-ffp-contract=off", "-Wall", `-I${EMULATION_DIR}`, "-o", exe, path.join(dir, "driver.cpp")], { encoding: "utf8" });
    assert.equal(build.status, 0, build.stderr);
    assert.deepEqual(build.stderr.split("\n").filter((l) => /libdevice_emulation\.hpp.*warning/.test(l)), [], "warnings in libdevice_emulation.hpp");

    const fixtures = loadFixtures();
    const order: [string, number][] = [];
    const input: string[] = [];
    for (const fn of LIBDEVICE_FUNCTIONS) {
      const fixture = fixtures.get(fn.name);
      if (!fixture) continue;
      fixture.cases.forEach(([args], i) => {
        order.push([fn.name, i]);
        input.push(`${fn.name} ${args.join(" ")}`);
      });
    }
    const run = spawnSync(exe, [], { input: input.join("\n") + "\n", encoding: "utf8", maxBuffer: 1 << 28 });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.split("\n");

    const vsReference = new Map<string, FunctionResult>();
    const vsSimulator = new Map<string, { maxUlp: number; mismatches: string[] }>();
    order.forEach(([name, i], line) => {
      const fn = LIBDEVICE_FUNCTIONS.find((f) => f.name === name)!;
      const fixture = fixtures.get(name)!;
      const [encodedArgs, encodedWant] = fixture.cases[i]!;
      const args = encodedArgs.map((a, k) => decode(a, fixture.params[k]!));
      const tokens = lines[line]!.trim().split(/\s+/);
      const got = tokens.map((tok, k) => decode(fixture.results[k]!.startsWith("f") ? tok : tok, fixture.results[k]!));
      const want = encodedWant.map((w, k) => decode(w, fixture.results[k]!));
      const out = LIBDEVICE[name]!(...args);
      const sim = (Array.isArray(out) ? out : [out]) as Value[];
      const r = vsReference.get(name) ?? { maxUlp: 0, cases: 0, failures: [] };
      const s = vsSimulator.get(name) ?? { maxUlp: 0, mismatches: [] };
      r.cases++;
      want.forEach((w, k) => {
        const type = fixture.results[k]!;
        const v = judge(fn, args, got[k]!, w, type);
        record(r, v);
        const exception = EXCEPTIONS.emulation[name];
        if (!v.ok && exception && v.ulps <= exception.maxUlp) return;
        if (!v.ok) r.failures.push(`${name}(${formatArgs(args)})${want.length > 1 ? `[${k}]` : ""}: ${v.why}`);
        const g = got[k]!;
        const sv = sim[k]!;
        const same = typeof g === "number" && typeof sv === "number" && type.startsWith("f")
          ? (Number.isNaN(g) && Number.isNaN(sv)) || Object.is(g, sv)
          : g === sv;
        if (!same) {
          const d = typeof g === "number" && typeof sv === "number" && type.startsWith("f") ? ulpDistance(g, sv, type as "f32" | "f64") : Infinity;
          s.maxUlp = Math.max(s.maxUlp, d === 0 ? 0 : d);
          if ("exact" in fn.accuracy) s.mismatches.push(`${name}(${formatArgs(args)}): emulation ${String(g)}, simulator ${String(sv)}`);
        }
      });
      vsReference.set(name, r);
      vsSimulator.set(name, s);
    });
    writeResults("emulation.json", vsReference);
    const simFile = path.resolve(__dirname, "../../libdevice/results/emulation-vs-simulator.json");
    fs.writeFileSync(simFile, JSON.stringify(Object.fromEntries([...vsSimulator].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, s]) => [n, { maxUlp: Number.isFinite(s.maxUlp) ? s.maxUlp : null, exactMismatches: s.mismatches.length }])), null, 1) + "\n");
    for (const [n, e] of Object.entries(EXCEPTIONS.emulation)) console.log(`documented exception: ${n} measured ${vsReference.get(n)?.maxUlp} ulp (accepted up to ${e.maxUlp}): ${e.why}`);
    const approximate = [...vsSimulator].filter(([n]) => !("exact" in LIBDEVICE_FUNCTIONS.find((f) => f.name === n)!.accuracy));
    console.log(`emulation vs simulator, approximate functions: max ulp ${Math.max(...approximate.map(([, s]) => s.maxUlp))}; ${approximate.filter(([, s]) => s.maxUlp === 0).length}/${approximate.length} agree bit for bit on every fixture`);
    const failing = [...vsReference].filter(([, r]) => r.failures.length > 0);
    const mismatching = [...vsSimulator].filter(([, s]) => s.mismatches.length > 0);
    assert.equal(failing.length, 0, `emulation outside CUDA's bound: ${failing.map(([n, r]) => `${n} (${r.failures.length})`).join(", ")}\n${failing.flatMap(([, r]) => r.failures.slice(0, 2)).slice(0, 50).join("\n")}`);
    assert.equal(mismatching.length, 0, `exact functions where emulation and simulator differ: ${mismatching.map(([n, s]) => `${n} (${s.mismatches.length})`).join(", ")}\n${mismatching.flatMap(([, s]) => s.mismatches.slice(0, 2)).slice(0, 50).join("\n")}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
