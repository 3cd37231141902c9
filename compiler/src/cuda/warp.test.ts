/**
 * Warp intrinsics on every dtype of value they take: the mask (and the lane, delta or lane mask) stays
 * a 32-bit integer in the generated C++ and in the PTX, whatever the value's dtype, and an f16 value is
 * shuffled and matched as its 16 bits. (f16 shuffles once computed the whole call in f32, so the mask
 * 0x7fffffff became 0x80000000 in the PTX; f16 matches did not compile.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { assemblePtx } from "@cudascript/native-bindings";
import { nvrtcOrSkip, ptxasOrSkip } from "../../../test/dist/support/toolchain-or-skip";
import { checkKernel } from "../../../test/dist/support/check-sources";
import { generateCuda } from "./generate";
import { compileModule } from "../compile/compile";

const ARRAYS = { f16: "Float16Array", f32: "Float32Array", f64: "Float64Array", i32: "Int32Array", u32: "Uint32Array", i64: "BigInt64Array", u64: "BigUint64Array", bool: "Uint8Array" };

/**
 * One kernel per dtype calling every warp intrinsic that takes a mask: the shuffles and syncwarp with
 * 0x7fffffff, the votes and matches with 0xfffffffe (masks a float cannot hold: they round to 2^31 and 2^32).
 */
const SOURCE = `import { cuda } from "cudascript";
${Object.entries(ARRAYS)
  .map(([d, array]) => {
    const v = d === "bool" ? "(x[0] > 0)" : "x[0]";
    return `export const warp_${d} = cuda.jit((x: ${array}, o: Uint32Array) => {
  const l = cuda.laneid;
  cuda.syncwarp(0x7fffffff);
  const a = cuda.shflSync(0x7fffffff, ${v}, 3);
  const b = cuda.shflUpSync(0x7fffffff, ${v}, 1);
  const c = cuda.shflDownSync(0x7fffffff, ${v}, 2);
  const e = cuda.shflXorSync(0x7fffffff, ${v}, 5);
  o[l] = cuda.matchAnySync(0xfffffffe, ${v}) ^ cuda.matchAllSync(0xfffffffe, ${v}) ^ cuda.ballotSync(0xfffffffe, ${v});
  o[l + 32] = (cuda.anySync(0xfffffffe, ${v}) ? 1 : 0) + (cuda.allSync(0xfffffffe, ${v}) ? 2 : 0) + (cuda.eqSync(0xfffffffe, ${v}) ? 4 : 0);
  o[l + 64] = (a ? 1 : 0) + (b ? 2 : 0) + (c ? 4 : 0) + (e ? 8 : 0);
});`;
  })
  .join("\n")}
`;

function moduleOfAll() {
  const r = checkKernel(SOURCE);
  assert.deepEqual(r.diagnostics.map((d) => `${d.span.line}: ${d.code} ${d.message}`), []);
  return r.module;
}

/** The mask of each warp instruction of the PTX (its last operand: an immediate or a register set by mov), as an unsigned number. */
function ptxMasks(ptx: string): { instruction: string; mask: number | undefined }[] {
  const movs = new Map<string, number>();
  for (const m of ptx.matchAll(/mov\.[bu]32\s+(%r\d+),\s*(-?\d+);/g)) movs.set(m[1]!, Number(m[2]));
  return [...ptx.matchAll(/^\s*((?:shfl\.sync|vote\.sync|match\.(?:any|all)\.sync|bar\.warp\.sync)[\w.]*)\s+([^;]*);/gm)].map((m) => {
    const last = m[2]!.split(",").pop()!.trim();
    const value = /^-?\d+$/.test(last) ? Number(last) : movs.get(last);
    return { instruction: m[1]!, mask: value === undefined ? undefined : value >>> 0 };
  });
}

test("f16 shuffles move the value's 16 bits and f16 matches compare them; the mask, lane and delta stay integers", () => {
  const src = generateCuda(moduleOfAll(), { lineDirectives: false }).source;
  assert.match(src, /const cs_half a = cs_half_from_bits\(__shfl_sync\(2147483647u, cs_half_bits\(x\[0\]\), 3\)\);/);
  assert.match(src, /const cs_half b = cs_half_from_bits\(__shfl_up_sync\(2147483647u, cs_half_bits\(x\[0\]\), 1\)\);/);
  assert.match(src, /const cs_half c = cs_half_from_bits\(__shfl_down_sync\(2147483647u, cs_half_bits\(x\[0\]\), 2\)\);/);
  assert.match(src, /const cs_half e = cs_half_from_bits\(__shfl_xor_sync\(2147483647u, cs_half_bits\(x\[0\]\), 5\)\);/);
  assert.match(src, /__match_any_sync\(4294967294u, cs_half_bits\(x\[0\]\)\) \^ cs_match_all_sync\(4294967294u, cs_half_bits\(x\[0\]\)\)/);
  // Every warp call of every dtype: the mask is the unsigned literal as written, never a float.
  const kernels = src.slice(src.indexOf('extern "C"'));
  const calls = [...kernels.matchAll(/\b(__shfl\w*_sync|__match_any_sync|cs_match_all_sync|__ballot_sync|__any_sync|__all_sync|__uni_sync|__syncwarp)\(([^,)]*)/g)];
  assert.equal(calls.length, Object.keys(ARRAYS).length * 11);
  assert.deepEqual([...new Set(calls.map((c) => c[2]))].sort(), ["2147483647u", "4294967294u"]);
  assert.doesNotMatch(kernels, /\d\.0f[,)]/, "no float mask, lane or delta");
});

test("the PTX of every warp intrinsic on every dtype keeps the exact 32-bit mask (0x7fffffff is 2147483647), with no warning from NVRTC or ptxas (sm_70, sm_80, sm_90)", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const m = moduleOfAll();
  const r = await compileModule(m, { arch: "compute_70", cache: false });
  assert.ok(r.ok, r.diagnostics.map((d) => `${d.span.line}: ${d.message}`).join("\n"));
  assert.equal(r.modules.map((x) => x.log.trim()).join(""), "", "NVRTC's log");
  const masks = ptxMasks(r.ptx!);
  // Per dtype: syncwarp, 4 shuffles (an f64/i64/u64 shuffle is two 32-bit ones), 2 matches, ballot/any/all/eq votes.
  assert.ok(masks.length >= Object.keys(ARRAYS).length * 11, `${masks.length} warp instructions`);
  const wrong = masks.filter((x) => x.mask !== 0x7fffffff && x.mask !== 0xfffffffe);
  assert.deepEqual(wrong, [], "masks other than 0x7fffffff and 0xfffffffe");
  for (const kind of ["shfl.sync", "match.any.sync", "match.all.sync", "vote.sync", "bar.warp.sync"])
    assert.ok(masks.some((x) => x.instruction.startsWith(kind)), kind);
  // sm_70 through NVRTC's own ptxas (the standalone one, from CUDA 13, no longer targets Volta).
  const volta = await compileModule(m, { arch: "sm_70", emit: ["cubin"], cache: false });
  assert.ok(volta.ok && volta.cubin, volta.diagnostics.map((d) => `${d.span.line}: ${d.message}`).join("\n"));
  assert.equal(volta.modules.map((x) => x.log.trim()).join(""), "", "NVRTC's log for sm_70");
  for (const arch of ["sm_80", "sm_90"]) {
    const run = assemblePtx(ptxas, r.ptx!, arch);
    assert.ok(run.ok, `ptxas -arch=${arch}: ${run.stderr}`);
    assert.equal(run.stderr.trim(), "", `ptxas -arch=${arch} says nothing`);
  }
});
