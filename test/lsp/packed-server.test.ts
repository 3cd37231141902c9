/**
 * The language server as other editors get it: @cudascript/server, @cudascript/compiler and
 * @cudascript/native-bindings are `npm pack`ed and installed into a fresh project outside the repository,
 * and `npx cudascript-language-server --stdio` is driven the way nvim-lspconfig, Helix or Zed drive it —
 * raw LSP over stdio, a minimal client that claims no workspace/configuration, no dynamic registration,
 * no work-done progress and no CodeLens refresh, and answers every request from the server with
 * MethodNotFound. The server must publish the CS code, link it to docs it shipped, hover, and exit 0.
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createMessageConnection,
  ErrorCodes,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ResponseError,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  type Hover,
  type InitializeResult,
  type MarkupContent,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol/node";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { find, REPO, tempDir, uriOf } from "./harness";

const PACKAGES = ["native-bindings", "compiler", "server"];
const BIN = "cudascript-language-server";

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 300_000 });
  if (r.status !== 0) throw new Error(`\`${cmd} ${args.join(" ")}\` in ${cwd} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** A kernel with a CS2005 error (an unannotated parameter) and a clean kernel to hover. */
const KERNEL_FILE = `import { cuda, f32 } from "cudascript";

export const scale = cuda.jit((a: f32, x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = a * x[i];
});

export const broken = cuda.jit((n, x: Float32Array) => {
  x[0] = n;
});
`;
/** The same file with the error fixed: NVRTC compiles only files without errors. */
const FIXED_FILE = KERNEL_FILE.replace("(n, x", "(n: f32, x");

/** The first value `next` produces that is not undefined, polling until the deadline. */
async function poll<T>(what: string, timeoutMs: number, next: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await next();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("the packed language server, started by a generic LSP client", () => {
  let work: string;
  let project: string;

  before(() => {
    work = tempDir("cs-packed-server-");
    const packs = path.join(work, "packs");
    fs.mkdirSync(packs);
    const tarballs = PACKAGES.map((dir) => path.join(packs, run("npm", ["pack", "--silent", "--pack-destination", packs], path.join(REPO, dir)).trim().split("\n").pop()!));
    project = path.join(work, "project");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "editor-user", version: "1.0.0", private: true }));
    run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], project);
  });
  after(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("--version and --help print and exit 0; an unknown argument says how to start it", () => {
    const bin = path.join(project, "node_modules", ".bin", BIN);
    const version = spawnSync(bin, ["--version"], { encoding: "utf8" });
    assert.equal(version.status, 0);
    assert.equal(version.stdout.trim(), JSON.parse(fs.readFileSync(path.join(REPO, "server", "package.json"), "utf8")).version);
    const help = spawnSync(bin, ["--help"], { encoding: "utf8" });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--stdio/);
    const bad = spawnSync(bin, ["--port", "9"], { encoding: "utf8" });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown argument '--port'.*cudascript-language-server --stdio/);
  });

  it("npx cudascript-language-server --stdio: diagnostics with a docs link, hover, shutdown, exit 0", async (t) => {
    const nvrtc = nvrtcOrSkip(t) !== undefined; // without NVRTC the registers stay unknown; everything else is checked
    const file = path.join(project, "src", "kernels.ts");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, KERNEL_FILE);
    const uri = uriOf(file);

    const child = spawn("npx", ["--no-install", BIN, "--stdio"], { cwd: project, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // The plain JSON-RPC connection: its catch-all request handler answers what the server asks of the client.
    const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const serverRequests: string[] = [];
    conn.onRequest((method: string, _params: unknown) => {
      serverRequests.push(method);
      return new ResponseError(ErrorCodes.MethodNotFound, `this client does not support ${method}`);
    });
    const published: PublishDiagnosticsParams[] = [];
    conn.onNotification(PublishDiagnosticsNotification.type, (p) => void published.push(p));
    conn.listen();
    try {
      const init = (await conn.sendRequest(InitializeRequest.type, {
        processId: process.pid,
        rootUri: uriOf(project),
        workspaceFolders: [{ uri: uriOf(project), name: "project" }],
        capabilities: { textDocument: { hover: { contentFormat: ["markdown", "plaintext"] }, publishDiagnostics: { codeDescriptionSupport: true } } },
      })) as InitializeResult;
      assert.equal(init.serverInfo?.name, BIN);
      assert.ok(init.capabilities.hoverProvider);
      await conn.sendNotification(InitializedNotification.type, {});
      await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "typescript", version: 1, text: KERNEL_FILE } });

      const diagnostics = await poll("publishDiagnostics", 30_000, async () => published.find((p) => p.uri === uri && p.diagnostics.length)?.diagnostics);
      const cs2005 = diagnostics.find((d) => d.code === "CS2005");
      assert.ok(cs2005, `CS2005 expected, got ${JSON.stringify(diagnostics)}`);
      assert.equal(cs2005.range.start.line, 7);
      // The link points into docs/diagnostics.md shipped in the installed packages, and names the code's section.
      const href = cs2005.codeDescription?.href;
      assert.ok(href, "the diagnostic links to its documentation");
      const docs = fileURLToPath(href.replace(/#.*$/, ""));
      assert.ok(docs.startsWith(path.join(project, "node_modules")), `docs from the installed package, not ${docs}`);
      assert.match(fs.readFileSync(docs, "utf8"), /^#+ .*CS2005/m);

      const hoverText = async (): Promise<string> => {
        const h = (await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: find(KERNEL_FILE, "scale", 1) })) as Hover | null;
        return (h?.contents as MarkupContent | undefined)?.value ?? "";
      };
      assert.match(await hoverText(), /Occupancy|occupancy/);
      await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: FIXED_FILE }] });
      await poll("the diagnostics of the fixed file", 30_000, async () => (published.some((p) => p.uri === uri && p.version === 2 && !p.diagnostics.length) ? true : undefined));
      if (nvrtc) {
        // Registers come from NVRTC in the packed native-bindings' child process.
        const text = await poll("registers from NVRTC in the hover", 60_000, async () => {
          const h = await hoverText();
          return /\| Registers per thread \| \d+ /.test(h) ? h : undefined;
        });
        assert.match(text, /\| Registers per thread \| \d+ \(from /);
      }

      await conn.sendRequest(ShutdownRequest.type);
      await conn.sendNotification(ExitNotification.type);
      assert.equal(await exited, 0, `exit code 0 expected; stderr: ${stderr}`);
      // The server asked for nothing this client did not claim to support.
      assert.deepEqual(serverRequests, []);
    } finally {
      conn.dispose();
      if (child.exitCode === null) child.kill();
    }
  });
});
