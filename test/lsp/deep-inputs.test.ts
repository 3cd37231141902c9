/**
 * Deep and huge inputs through the real language server: a folder of generated files (1,000 nested
 * parentheses, 1,000 nested ifs, a 4,000-term sum, a 20-coefficient Horner polynomial, a 2 MB file of
 * kernels, binary garbage), every one opened and asked for diagnostics, hovers, CodeLens and the
 * generated code. Every request is answered, the deep ones get CS1021 (never CS9001), and the process
 * stays alive.
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { LspClient, tempDir, uriOf } from "./harness";

const HEAD = 'import { cuda, f32 } from "cudascript";\n';
const kernel = (name: string, body: string) => `export const ${name} = cuda.jit((a: Float32Array, x: f32) => {\n  const i = cuda.grid(1);\n${body}\n});\n`;
const LAUNCH = "k.launch(1, 32)(new Float32Array(32), 2);\n";

function hugeKernelFile(bytes: number): string {
  let text = HEAD;
  for (let n = 0; text.length < bytes; n++) text += kernel(`k${n}`, `  if (i < a.length) {\n    a[i] = a[i] * x + ${n}.5;\n  }`);
  return text;
}

/** name → [text, the codes its diagnostics must be] */
const FILES: Record<string, [string, string[]]> = {
  "parens-1000.ts": [HEAD + kernel("k", `  a[0] = ${"(".repeat(1000)}x${")".repeat(1000)};`) + LAUNCH, ["CS1021"]],
  "ifs-1000.ts": [HEAD + kernel("k", `${"  if (i < a.length) {\n".repeat(1000)}  a[i] = x;\n${"  }\n".repeat(1000)}`) + LAUNCH, ["CS1021"]],
  "sum-4000.ts": [HEAD + kernel("k", `  a[0] = ${Array(4000).fill("x").join(" + ")};`) + LAUNCH, ["CS1021"]],
  "horner-20.ts": [HEAD + kernel("k", `  if (i < a.length) a[i] = ${Array.from({ length: 20 }, (_, j) => `${j + 1}.5 + x * (`).join("")}0.5${")".repeat(20)};`) + LAUNCH, []],
  "huge-2mb.ts": [hugeKernelFile(2 * 1024 * 1024), []],
  "binary.ts": [HEAD + Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 167 + 13) % 256)).toString("utf8"), ["CS1020"]],
};

interface GeneratedCode {
  text: string;
  error?: string;
}

describe("deep and huge inputs in the language server", () => {
  let client: LspClient;
  const dir = tempDir("cs-lsp-deep-");
  before(async () => {
    for (const [name, [text]] of Object.entries(FILES)) fs.writeFileSync(path.join(dir, name), text);
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 } }, requestTimeoutMs: 120_000 });
  });
  after(async () => {
    await client.stop();
  });

  for (const [name, [, expected]] of Object.entries(FILES)) {
    it(`${name}: diagnostics ${expected.join(", ") || "none"}; hover, CodeLens and generated code answered`, async () => {
      const file = path.join(dir, name);
      const uri = uriOf(file);
      const text = fs.readFileSync(file, "utf8");
      const diagnostics = await client.openAndWait(uri, text, 120_000);
      const codes = [...new Set(diagnostics.map((d) => String(d.code)))];
      assert.deepEqual(codes, expected, diagnostics.map((d) => `${String(d.code)}@${d.range.start.line + 1}: ${String(d.message).slice(0, 200)}`).join("\n"));
      const lines = text.split("\n");
      // The first line, the deep middle of the file and its last line.
      for (const line of [0, Math.floor(lines.length / 2), lines.length - 2]) {
        await client.hover(uri, { line, character: Math.floor((lines[line]?.length ?? 0) / 2) }, 120_000);
      }
      assert.ok(Array.isArray(await client.codeLens(uri, 120_000)));
      const generated = await client.request<GeneratedCode>("cudascript/generatedCode", { uri, kind: "cuda" }, 120_000);
      assert.ok(typeof generated.text === "string");
      if (expected.length) assert.match(generated.error ?? "", /error/, "no code for a file with errors, and it says why");
      else assert.equal(generated.error, undefined);
      await client.close(uri);
      assert.equal(client.exited, undefined, "the server is still running");
    });
  }

  it("logged no internal error and is still running", () => {
    assert.deepEqual(client.internalErrors(), []);
    assert.equal(client.exited, undefined);
  });
});
