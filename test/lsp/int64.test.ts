/**
 * 64-bit integers through the real language server (a server process over stdio): mixing a bigint
 * with a number is CS2018 at the expression, with its code and what to write, and goes away once the
 * conversion is written; hovering the `i64` / `u64` of a variable's annotation documents the dtype.
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { find, LspClient, tempDir, uriOf } from "./harness";

const TEXT = `import { cuda, i32, i64, u64 } from "cudascript";

export const scaleAndShift = cuda.jit((a: BigInt64Array, shift: i32) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  const big: i64 = a[i] * 3n;
  const mask: u64 = 0xffffffffffffffffn;
  a[i] = big + shift;
  a[i] = BigInt.asIntN(64, BigInt.asUintN(64, a[i]) & mask);
});
`;

describe("i64 in the language server", () => {
  let client: LspClient;
  const uri = uriOf(path.join(tempDir("cs-lsp-int64-"), "int64.ts"));

  before(async () => {
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 } } });
  });
  after(async () => {
    await client.stop();
  });

  it("bigint + number is CS2018 on that expression, saying to convert; writing BigInt(shift) clears it", async () => {
    const diagnostics = await client.openAndWait(uri, TEXT);
    assert.deepEqual(
      diagnostics.map((d) => [d.code, d.severity, d.range.start]),
      [["CS2018", 1, find(TEXT, "big + shift")]],
    );
    const message = diagnostics[0]!.message;
    assert.match(typeof message === "string" ? message : message.value, /BigInt\(/);
    assert.deepEqual(await client.changeAndWait(uri, TEXT.replace("big + shift", "big + BigInt(shift)")), []);
  });

  it("hovering i64 / u64 in a variable's annotation documents the dtype", async () => {
    await client.changeAndWait(uri, TEXT);
    const i64 = await client.hoverText(uri, find(TEXT, "big: i64", 6));
    assert.match(i64 ?? "", /`i64` \(from "cudascript"\): 64-bit signed integer .*bigint/);
    const u64 = await client.hoverText(uri, find(TEXT, "mask: u64", 7));
    assert.match(u64 ?? "", /`u64` \(from "cudascript"\): 64-bit unsigned integer .*bigint/);
  });
});
