/**
 * Record hovers through the real server (docs/kernel-language.md#records): a record type's name shows
 * numpy's align=True layout (size, alignment, each field's offset, size and alignment), and a field —
 * in the interface, in cuda.record({ … }), or accessed in a kernel — shows its own.
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { find, LspClient, tempDir, uriOf } from "./harness";

const TEXT = `import { cuda, f32, f64, i32, u8, c64, type Array1D } from "cudascript";

interface Wave { flag: u8; z: c64; w: f64; id: i32 }
const Wave = cuda.record({ flag: u8, z: c64, w: f64, id: i32 });

const half = cuda.device((v: Wave): f64 => v.w / 2);

export const step = cuda.jit((ws: Array1D<Wave>, out: Array1D<f64>) => {
  const i = cuda.grid(1);
  const sh = cuda.shared.array(32, Wave);
  if (i < ws.length) {
    sh[cuda.threadIdx.x] = ws[i];
    const p = ws[i];
    out[i] = p.w + ws[i].id + sh[cuda.threadIdx.x].w + half(ws[i]);
  }
});
`;

describe("record hovers", () => {
  let client: LspClient;
  const dir = tempDir("cs-lsp-record-hover-");
  const uri = uriOf(path.join(dir, "records.ts"));

  before(async () => {
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 } } });
    const diagnostics = await client.openAndWait(uri, TEXT);
    assert.deepEqual(diagnostics, [], "the fixture must be clean");
  });
  after(async () => {
    await client.stop();
  });

  it("on the record's name (interface, type reference, dtype const): size, alignment and every field's offset", async () => {
    // numpy align=True: flag u8 @0, z c64 @4 (aligned as f32), w f64 @16, id i32 @24; 32 bytes, aligned to 8.
    for (const at of [find(TEXT, "Wave {", 1), find(TEXT, "Array1D<Wave>", 9), find(TEXT, "const Wave", 7)]) {
      const md = await client.hoverText(uri, at);
      assert.ok(md, "no hover");
      assert.match(md, /\*\*record Wave\*\*: 32 bytes, aligned to 8/);
      assert.match(md, /\| `flag` \| u8 \| 0 \| 1 \| 1 \|/);
      assert.match(md, /\| `z` \| c64 \| 4 \| 8 \| 4 \|/);
      assert.match(md, /\| `w` \| f64 \| 16 \| 8 \| 8 \|/);
      assert.match(md, /\| `id` \| i32 \| 24 \| 4 \| 4 \|/);
    }
  });

  it("on a field: in the interface, in cuda.record, and accessed through an element, a copy, a shared array and a record parameter", async () => {
    const cases: [ReturnType<typeof find>, RegExp][] = [
      [find(TEXT, "z: c64; w", 0), /\*\*Wave\.z\*\*: c64 at byte offset 4, 8 bytes, aligned to 4/],
      [find(TEXT, "w: f64, id", 0), /\*\*Wave\.w\*\*: f64 at byte offset 16/],
      [find(TEXT, "p.w", 2), /\*\*Wave\.w\*\*: f64 at byte offset 16/],
      [find(TEXT, "ws[i].id", 6), /\*\*Wave\.id\*\*: i32 at byte offset 24/],
      [find(TEXT, "threadIdx.x].w", 13), /\*\*Wave\.w\*\*/],
      [find(TEXT, "v.w", 2), /\*\*Wave\.w\*\*/],
    ];
    for (const [at, want] of cases) {
      const md = await client.hoverText(uri, at);
      assert.ok(md, `no hover at ${JSON.stringify(at)}`);
      assert.match(md, want);
    }
  });
});
