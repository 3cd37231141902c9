/**
 * The CUDA C++ of cuda.random (compiler/src/cuda/random.ts), compiled by g++ with the emulation header,
 * draws Numba's own sequences: the same uniform f32/f64 bits and final states as Numba 0.56.4's CUDA
 * simulator from the same initial states (test/runtime/fixtures/numba/xoroshiro128p.json), and the
 * same values as the simulator's implementation (runtime/src/random/xoroshiro128p.ts) for the normals.
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { XOROSHIRO128P_CPP } from "@cudascript/compiler";
import { initStates, normalFloat32, normalFloat64, uniformFloat32 } from "cudascript/dist/random/xoroshiro128p";
import { REPO } from "../simulator/helpers";
import { xoroshiroFixture, type XoroshiroCase } from "../runtime/fixtures/numba/xoroshiro128p-fixture";
import { findGxx } from "./harness";

const fixture = xoroshiroFixture;
const K = fixture.drawsPerKind;

const MAIN = `
#include <cinttypes>
int main() {
  unsigned long long n;
  while (scanf("%llu", &n) == 1) {
    std::vector<unsigned long long> s(2 * n);
    for (auto& w : s) scanf("%llu", &w);
    for (unsigned long long i = 0; i < n; i++) {
      for (int k = 0; k < ${K}; k++) { float f = cs_xoroshiro128p_uniform_f32(s.data(), (long long)i); unsigned b; memcpy(&b, &f, 4); printf("%u ", b); }
      for (int k = 0; k < ${K}; k++) { double d = cs_xoroshiro128p_uniform_f64(s.data(), (long long)i); unsigned long long b; memcpy(&b, &d, 8); printf("%llu ", b); }
      for (int k = 0; k < ${K}; k++) printf("%.9g ", (double)cs_xoroshiro128p_normal_f32(s.data(), (long long)i));
      for (int k = 0; k < ${K}; k++) printf("%.17g ", cs_xoroshiro128p_normal_f64(s.data(), (long long)i));
      printf("%llu %llu\\n", s[2 * i], s[2 * i + 1]);
    }
  }
}
`;

describe("cuda.random's CUDA C++ (g++ emulation) against Numba's draws", () => {
  it("draws Numba's uniform f32/f64 bits and leaves Numba's states; normals match the simulator's within 1 ulp", (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("no g++");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-xoro-"));
    const src = path.join(dir, "xoro.cpp");
    fs.writeFileSync(src, `#include "${path.join(REPO, "test", "emulation", "cuda_emulation.hpp")}"\n${XOROSHIRO128P_CPP}\n${MAIN}`);
    execFileSync(gxx, ["-std=c++20", "-O1", "-ffp-contract=off", "-o", path.join(dir, "xoro"), src, "-pthread"]);
    const input = fixture.cases.map((c) => `${c.n} ${c.states.flat().join(" ")}`).join("\n");
    const out = execFileSync(path.join(dir, "xoro"), { input, encoding: "utf8" }).trim().split("\n");
    fs.rmSync(dir, { recursive: true, force: true });
    let row = 0;
    for (const c of fixture.cases) {
      const w = new Uint32Array(4 * c.n);
      initStates(w, c.n, BigInt(c.seed), c.subsequence);
      for (let i = 0; i < c.n; i++) {
        const f = out[row++]!.split(" ");
        assert.deepEqual(f.slice(0, K).map(Number), c.uniformFloat32Bits[i], `seed ${c.seed} state ${i}: uniform f32`);
        assert.deepEqual(f.slice(K, 2 * K), c.uniformFloat64Bits[i], `seed ${c.seed} state ${i}: uniform f64`);
        assert.deepEqual(f.slice(4 * K), c.statesAfter[i], `seed ${c.seed} state ${i}: state after the draws`);
        for (let k = 0; k < 2 * K; k++) uniformFloat32(w, i); // the simulator's draws up to the normals
        for (let k = 0; k < K; k++) {
          const sim = normalFloat32(w, i), cpp = Number(f[2 * K + k]);
          assert.ok(Math.abs(sim - cpp) <= Math.abs(sim) * 2 ** -23, `normal f32 ${sim} (simulator) vs ${cpp} (C++)`);
        }
        for (let k = 0; k < K; k++) {
          const sim = normalFloat64(w, i), cpp = Number(f[3 * K + k]);
          assert.ok(Math.abs(sim - cpp) <= Math.abs(sim) * 2 ** -22, `normal f64 ${sim} (simulator) vs ${cpp} (C++)`);
        }
      }
    }
    assert.equal(row, out.length);
  });
});
