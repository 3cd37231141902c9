// The PTX signature reader (no driver needed; NVRTC only for the cross-check at the end).
import assert from "node:assert/strict";
import { test } from "node:test";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { parsePtx } from "@cudascript/native-bindings/cuda";
import { KINDS_PTX, KINDS_SOURCE } from "./ptx.fixtures";

const KINDS_SIZES = [1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16, 1];

test("NVRTC's PTX: version, target, every entry with the size and alignment of each parameter", () => {
  const info = parsePtx(KINDS_PTX);
  assert.deepEqual(info.version, { major: 7, minor: 8 });
  assert.equal(info.target, "sm_80");
  assert.deepEqual(
    info.entries.map((e) => e.name),
    ["kinds", "reduceSum"],
  );
  const [kinds, reduce] = info.entries;
  assert.deepEqual(
    kinds?.params.map((p) => p.size),
    KINDS_SIZES,
  );
  assert.deepEqual(kinds?.params[11], { name: "kinds_param_11", size: 16, align: 8, type: ".b8" });
  assert.deepEqual(kinds?.params[9], { name: "kinds_param_9", size: 8, align: 8, type: ".f64" });
  assert.deepEqual(
    reduce?.params.map((p) => [p.name, p.size, p.type]),
    [
      ["reduceSum_param_0", 8, ".u64"],
      ["reduceSum_param_1", 8, ".u64"],
      ["reduceSum_param_2", 4, ".u32"],
    ],
  );
});

test("pointer attributes, comments, kernels without parameters and declarations that are not entries", () => {
  const ptx = `
.version 8.0
.target sm_90a, debug
// .entry commented(.param .u32 x)
/* .entry alsoCommented( .param .u64 y ) */
.func (.param .b32 ret) helper(.param .b32 a) { ret; }
.visible .entry noParams()
{ ret; }
.entry attrs(
  .param .u64 .ptr .global .align 16 attrs_param_0,
  .param .align 4 .b8 attrs_param_1[12],
  .param .s16 attrs_param_2
)
{ ret; }`;
  const info = parsePtx(ptx);
  assert.deepEqual(info.version, { major: 8, minor: 0 });
  assert.equal(info.target, "sm_90a");
  assert.deepEqual(
    info.entries.map((e) => [e.name, e.params.map((p) => `${p.size}/${p.align}`)]),
    [
      ["noParams", []],
      ["attrs", ["8/16", "12/4", "2/2"]],
    ],
  );
});

test("NVRTC still produces the fixture's kernel signatures", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const result = nvrtc.compile({ source: KINDS_SOURCE, name: "kinds.cu", options: ["--gpu-architecture=compute_80"] });
  assert.equal(result.ok, true, result.log);
  const fresh = parsePtx(result.ptx ?? "");
  assert.deepEqual(
    fresh.entries.map((e) => [e.name, e.params.map((p) => p.size)]),
    parsePtx(KINDS_PTX).entries.map((e) => [e.name, e.params.map((p) => p.size)]),
  );
});
