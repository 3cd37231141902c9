/**
 * Quick fixes through the real server: every fix offered for every fixable diagnostic of the invalid
 * corpus, applied to the text and sent back as a change, removes that diagnostic and adds none; plus
 * hand-written cases for the edge shapes (braceless `if`, declarations, CRLF, name clashes).
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { CodeAction, Diagnostic } from "vscode-languageserver-protocol";
import { applyWorkspaceEdit, corpusFiles, LspClient, uriOf } from "./harness";

function counts(ds: readonly Diagnostic[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const d of ds) m.set(String(d.code), (m.get(String(d.code)) ?? 0) + 1);
  return m;
}

function hasFix(d: Diagnostic): boolean {
  return !!(d.data as { fix?: unknown } | undefined)?.fix;
}

describe("quick fixes", () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 } } });
  });
  after(async () => {
    await client.stop();
  });

  /** Applies `action` to the open document, returns the new text and its diagnostics. */
  async function apply(uri: string, action: CodeAction): Promise<{ text: string; diagnostics: Diagnostic[] }> {
    const text = applyWorkspaceEdit(client.text(uri), action.edit, uri);
    const diagnostics = await client.changeAndWait(uri, text);
    return { text, diagnostics };
  }

  /**
   * Asserts that the fix removed the `code` diagnostic (at least one fewer; a guard around a declaration
   * may fix the lines after it too) and added nothing.
   */
  function assertFixed(before: Diagnostic[], after: Diagnostic[], code: string, context: string): void {
    const b = counts(before);
    const a = counts(after);
    assert.ok((a.get(code) ?? 0) <= (b.get(code) ?? 0) - 1, `${context}: ${code} count ${b.get(code)} → ${a.get(code) ?? 0}; after: ${JSON.stringify(after.map((d) => `${d.code}:${d.range.start.line + 1} ${d.message}`))}`);
    for (const [c, n] of a) assert.ok(n <= (b.get(c) ?? 0), `${context}: the fix introduced ${c} (${JSON.stringify(after.filter((d) => d.code === c).map((d) => d.message))})`);
  }

  const fixable = corpusFiles("invalid").filter((f) => /@expect\s+CS(3001|3002|2001|2002|5005)/.test(fs.readFileSync(f, "utf8")));
  let fixesApplied = 0;
  const codesFixed = new Set<string>();

  for (const file of fixable) {
    it(`corpus ${path.basename(file)}: each fix removes its diagnostic`, async () => {
      const original = fs.readFileSync(file, "utf8");
      const uri = uriOf(file);
      const initial = await client.openAndWait(uri, original);
      try {
        const withFix = initial.filter(hasFix);
        assert.ok(withFix.length > 0, "expected fixable diagnostics");
        for (const d of withFix) {
          const actions = ((await client.codeActions(uri, d.range, [d])) ?? []) as CodeAction[];
          assert.ok(actions.length > 0, `no code action for ${d.code} at line ${d.range.start.line + 1}`);
          for (const action of actions) {
            assert.equal(action.kind, "quickfix");
            assert.ok(action.edit, "quick fixes carry their edit");
            assert.equal(action.diagnostics?.[0]?.code, d.code);
            const { diagnostics } = await apply(uri, action);
            assertFixed(initial, diagnostics, String(d.code), `${action.title} (line ${d.range.start.line + 1})`);
            fixesApplied++;
            codesFixed.add(String(d.code));
            assert.deepEqual(await client.changeAndWait(uri, original), initial, "reverting restores the diagnostics");
          }
        }
      } finally {
        await client.close(uri);
      }
    });
  }

  it("covered every kind of fix hint", () => {
    for (const code of ["CS3001", "CS3002", "CS2001", "CS2002", "CS5005"]) assert.ok(codesFixed.has(code), `no ${code} fix was exercised`);
    assert.ok(fixesApplied >= 10, `only ${fixesApplied} fixes applied`);
  });

  const cases: { name: string; code: string; text: string; expect: RegExp; title?: RegExp }[] = [
    {
      name: "drop a returned call in a braceless if: keeps the call, adds braces",
      code: "CS2001",
      text: `import { cuda, f32 } from "cudascript";
const twice = cuda.device((x: f32): f32 => x * 2);
export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) return twice(x[i]);
});
`,
      expect: /if \(i < x\.length\) \{ twice\(x\[i\]\); return; \}/,
    },
    {
      name: "wrap a conditional index in parentheses before | 0",
      code: "CS2002",
      text: `import { cuda } from "cudascript";
export const k = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length && i < x.length) out[i] = x[i > 4 ? i / 2 : i];
});
`,
      expect: /x\[\(i > 4 \? i \/ 2 : i\) \| 0\]/,
    },
    {
      name: "bounds guard around a declaration also guards the statements using it",
      code: "CS5005",
      text: `import { cuda, f32 } from "cudascript";
export const k = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const v: f32 = x[i]; // read
  out[i] = v * 2;
});
`,
      expect: /  if \(i < x\.length\) \{\n    const v: f32 = x\[i\]; \/\/ read\n    out\[i\] = v \* 2;\n  \}\n/,
    },
    {
      name: "hoist with a CRLF file and a clashing module name",
      code: "CS3001",
      text: [
        'import { cuda, f32 } from "cudascript";',
        "let MAX_SIZE = 3;",
        "export const k = cuda.jit((x: Float32Array) => {",
        "  const buf = cuda.local.array(x.length, f32);",
        "  buf[0] = 1;",
        "});",
        "",
      ].join("\r\n"),
      expect: /\r\n\/\/ TODO: 64 is a placeholder: set MAX_SIZE_2 to the largest size this array can need\.\r\nconst MAX_SIZE_2 = 64;\r\n[\s\S]*cuda\.local\.array\(MAX_SIZE_2, f32\)/,
    },
    {
      name: "hoist reuses an existing numeric module constant of that name",
      code: "CS3001",
      text: `import { cuda, f32, i32 } from "cudascript";
const MAX_N = 16;
export const k = cuda.jit((x: Float32Array, n: i32) => {
  const buf = cuda.local.array(n, f32);
  if (n > 0 && n < x.length) buf[0] = x[n];
});
`,
      title: /maximum/,
      expect: /^import[^\n]*\nconst MAX_N = 16;\nexport const k = cuda\.jit\(\(x: Float32Array, n: i32\) => \{\n  if \(n > MAX_N\) return;\n  const buf = cuda\.local\.array\(MAX_N, f32\);/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const uri = `untitled:${c.code}-${cases.indexOf(c)}.ts`;
      const before = await client.openAndWait(uri, c.text);
      try {
        const d = before.find((x) => x.code === c.code && hasFix(x));
        assert.ok(d, `expected a fixable ${c.code}, got ${JSON.stringify(before.map((x) => `${x.code}:${x.range.start.line + 1}`))}`);
        const actions = ((await client.codeActions(uri, d.range, [d])) ?? []) as CodeAction[];
        const action = c.title ? actions.find((a) => c.title!.test(a.title)) : actions.find((a) => a.isPreferred) ?? actions[0];
        assert.ok(action, `no matching action among ${JSON.stringify(actions.map((a) => a.title))}`);
        const { text, diagnostics } = await apply(uri, action);
        assert.match(text, c.expect);
        assertFixed(before, diagnostics, c.code, action.title);
      } finally {
        await client.close(uri);
      }
    });
  }

  it("only quick fixes for the requested range and kinds", async () => {
    const uri = "untitled:ranges.ts";
    const text = `import { cuda } from "cudascript";
export const k = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = x[i / 2];
});
`;
    await client.openAndWait(uri, text);
    assert.deepEqual(await client.codeActions(uri, { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }), []);
    const refactorOnly = await client.request<unknown[]>("textDocument/codeAction", {
      textDocument: { uri },
      range: { start: { line: 3, character: 0 }, end: { line: 3, character: 60 } },
      context: { diagnostics: [], only: ["refactor"] },
    });
    assert.deepEqual(refactorOnly, []);
    const all = (await client.codeActions(uri, { start: { line: 3, character: 0 }, end: { line: 3, character: 60 } })) as CodeAction[];
    assert.ok(all.length >= 1 && all.every((a) => a.kind === "quickfix"));
    await client.close(uri);
  });

  it("logged no internal error", () => {
    assert.deepEqual(client.internalErrors(), []);
  });
});
