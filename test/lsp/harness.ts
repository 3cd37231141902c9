/**
 * A minimal LSP client for protocol tests: starts the real server process (`node server/dist/server.js
 * --stdio`), speaks JSON-RPC through vscode-languageserver-protocol's node client, records every
 * publishDiagnostics, log message and stderr byte, and answers the server's own requests
 * (configuration, registrations, CodeLens refresh).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import {
  CodeActionRequest,
  CodeLensRequest,
  ConfigurationRequest,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  HoverRequest,
  InitializeRequest,
  InitializedNotification,
  LogMessageNotification,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShutdownRequest,
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type CodeAction,
  type CodeLens,
  type Command,
  type Diagnostic,
  type FileEvent,
  type Hover,
  type InitializeResult,
  type MarkupContent,
  type Position,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type Range,
  type TextDocumentContentChangeEvent,
  type TextEdit,
  type WorkspaceEdit,
} from "vscode-languageserver-protocol/node";

export const REPO = path.resolve(__dirname, "..", "..", "..");
export const SERVER = path.join(REPO, "server", "dist", "server.js");
export const CORPUS = path.join(REPO, "test", "corpus");

/** The marker the server puts on internal-error log lines (see server/src/language-server.ts). */
export const INTERNAL_ERROR = "[cudascript internal error]";

export interface StartOptions {
  env?: Record<string, string | undefined>;
  initializationOptions?: unknown;
  /** Answer for `workspace/configuration` section "cudascript"; omit to not claim the capability. */
  configuration?: () => unknown;
  requestTimeoutMs?: number;
}

export function uriOf(file: string): string {
  return pathToFileURL(file).href;
}

export class LspClient {
  readonly logs: { type: number; message: string }[] = [];
  stderr = "";
  exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  codeLensRefreshes = 0;
  initializeResult!: InitializeResult;
  private readonly published = new Map<string, PublishDiagnosticsParams[]>();
  private readonly waiters: { uri: string; pred: (p: PublishDiagnosticsParams) => boolean; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
  private readonly versions = new Map<string, number>();
  private readonly texts = new Map<string, string>();

  private constructor(
    readonly child: ChildProcess,
    readonly conn: ProtocolConnection,
    private readonly requestTimeoutMs: number,
  ) {}

  static async start(options: StartOptions = {}): Promise<LspClient> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(options.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawn(process.execPath, [SERVER, "--stdio"], { env, stdio: ["pipe", "pipe", "pipe"] });
    const conn = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new LspClient(child, conn, options.requestTimeoutMs ?? 20_000);
    child.stderr!.on("data", (b: Buffer) => (client.stderr += b.toString()));
    child.on("exit", (code, signal) => (client.exited = { code, signal }));
    conn.onNotification(PublishDiagnosticsNotification.type, (p) => client.onPublish(p));
    conn.onNotification(LogMessageNotification.method, (p: { type: number; message: string }) => {
      client.logs.push(p);
    });
    conn.onRequest(RegistrationRequest.method, () => null);
    conn.onRequest("workspace/codeLens/refresh", () => {
      client.codeLensRefreshes++;
      return null;
    });
    conn.onRequest(ConfigurationRequest.type, (p) => p.items.map((it) => (it.section === "cudascript" ? (options.configuration?.() ?? null) : null)));
    conn.onRequest("window/workDoneProgress/create", () => null);
    conn.listen();
    client.initializeResult = await client.request(InitializeRequest.type.method, {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: null,
      initializationOptions: options.initializationOptions,
      capabilities: {
        workspace: {
          configuration: options.configuration !== undefined,
          didChangeConfiguration: { dynamicRegistration: true },
          didChangeWatchedFiles: { dynamicRegistration: true },
          codeLens: { refreshSupport: true },
        },
        textDocument: {
          publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true, tagSupport: { valueSet: [1, 2] } },
          hover: { contentFormat: ["markdown", "plaintext"] },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["quickfix"] } }, isPreferredSupport: true, dataSupport: true },
        },
      },
    });
    await conn.sendNotification(InitializedNotification.type, {});
    return client;
  }

  private onPublish(p: PublishDiagnosticsParams): void {
    let list = this.published.get(p.uri);
    if (!list) this.published.set(p.uri, (list = []));
    list.push(p);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (w.uri === p.uri && w.pred(p)) {
        this.waiters.splice(i, 1);
        w.resolve(p);
      }
    }
  }

  /** Publishes received for `uri` so far. */
  publishes(uri: string): readonly PublishDiagnosticsParams[] {
    return this.published.get(uri) ?? [];
  }

  /** The first publish for `uri` (already received at index ≥ `since`, or future) matching `pred`. */
  waitForDiagnostics(uri: string, pred: (p: PublishDiagnosticsParams) => boolean = () => true, options: { since?: number; timeoutMs?: number } = {}): Promise<PublishDiagnosticsParams> {
    const list = this.published.get(uri) ?? [];
    for (let i = options.since ?? 0; i < list.length; i++) if (pred(list[i]!)) return Promise.resolve(list[i]!);
    return new Promise((resolve, reject) => {
      const timeout = options.timeoutMs ?? this.requestTimeoutMs;
      const w = { uri, pred, resolve: (p: PublishDiagnosticsParams) => (clearTimeout(timer), resolve(p)) };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error(`no matching publishDiagnostics for ${uri} within ${timeout} ms (exited: ${JSON.stringify(this.exited)}; stderr: ${this.stderr.slice(-500)})`));
      }, timeout);
      this.waiters.push(w);
    });
  }

  /** Sends a request and fails after the timeout (the server must answer everything). */
  async request<R>(method: string, params: unknown, timeoutMs = this.requestTimeoutMs): Promise<R> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`request ${method} got no answer within ${timeoutMs} ms (exited: ${JSON.stringify(this.exited)})`)), timeoutMs);
    });
    try {
      return await Promise.race([this.conn.sendRequest(method, params) as Promise<R>, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  text(uri: string): string {
    return this.texts.get(uri) ?? "";
  }

  version(uri: string): number {
    return this.versions.get(uri) ?? 0;
  }

  async open(uri: string, text: string, languageId = "typescript"): Promise<number> {
    this.versions.set(uri, 1);
    this.texts.set(uri, text);
    await this.conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } });
    return 1;
  }

  /** Opens and waits for the first diagnostics of this version. */
  async openAndWait(uri: string, text: string, timeoutMs?: number): Promise<Diagnostic[]> {
    const v = await this.open(uri, text);
    return (await this.waitForDiagnostics(uri, (p) => p.version === v, { timeoutMs })).diagnostics;
  }

  /** Replaces the whole text (or applies incremental changes) and returns the new version. */
  async change(uri: string, change: string | TextDocumentContentChangeEvent[]): Promise<number> {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    const changes = typeof change === "string" ? [{ text: change }] : change;
    this.texts.set(uri, typeof change === "string" ? change : applyContentChanges(this.texts.get(uri) ?? "", change));
    await this.conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: changes });
    return version;
  }

  async changeAndWait(uri: string, text: string, timeoutMs?: number): Promise<Diagnostic[]> {
    const v = await this.change(uri, text);
    return (await this.waitForDiagnostics(uri, (p) => p.version === v, { timeoutMs })).diagnostics;
  }

  async close(uri: string): Promise<void> {
    this.texts.delete(uri);
    this.versions.delete(uri);
    await this.conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  hover(uri: string, position: Position, timeoutMs?: number): Promise<Hover | null> {
    return this.request(HoverRequest.method, { textDocument: { uri }, position }, timeoutMs);
  }

  async hoverText(uri: string, position: Position): Promise<string | undefined> {
    const h = await this.hover(uri, position);
    if (!h) return undefined;
    const c = h.contents as MarkupContent | string;
    return typeof c === "string" ? c : c.value;
  }

  codeActions(uri: string, range: Range, diagnostics: Diagnostic[] = [], timeoutMs?: number): Promise<(CodeAction | Command)[] | null> {
    return this.request(CodeActionRequest.method, { textDocument: { uri }, range, context: { diagnostics } }, timeoutMs);
  }

  codeLens(uri: string, timeoutMs?: number): Promise<CodeLens[] | null> {
    return this.request(CodeLensRequest.method, { textDocument: { uri } }, timeoutMs);
  }

  async changeConfiguration(): Promise<void> {
    await this.conn.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
  }

  async watchedFilesChanged(changes: FileEvent[]): Promise<void> {
    await this.conn.sendNotification(DidChangeWatchedFilesNotification.type, { changes });
  }

  /** Log lines and stderr output that report an internal error or an uncaught exception. */
  internalErrors(): string[] {
    const out = this.logs.filter((l) => l.message.includes(INTERNAL_ERROR) || /uncaught|unhandled/i.test(l.message)).map((l) => l.message);
    if (this.stderr.trim()) out.push(`stderr: ${this.stderr}`);
    return out;
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    try {
      await this.request(ShutdownRequest.method, undefined, 5000);
      await this.conn.sendNotification(ExitNotification.type);
    } catch {
      /* already gone */
    }
    const deadline = Date.now() + 5000;
    while (!this.exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (!this.exited) this.child.kill();
    this.conn.dispose();
  }
}

/** Applies LSP content changes to a text (what an editor does). */
export function applyContentChanges(text: string, changes: TextDocumentContentChangeEvent[]): string {
  for (const c of changes) {
    if (!("range" in c) || !c.range) {
      text = c.text;
      continue;
    }
    const start = offsetAt(text, c.range.start);
    const end = offsetAt(text, c.range.end);
    text = text.slice(0, start) + c.text + text.slice(end);
  }
  return text;
}

/** Applies the edits of a WorkspaceEdit for one document. */
export function applyWorkspaceEdit(text: string, edit: WorkspaceEdit | undefined, uri: string): string {
  const edits: TextEdit[] = [...(edit?.changes?.[uri] ?? [])];
  for (const dc of edit?.documentChanges ?? []) if ("textDocument" in dc && dc.textDocument.uri === uri) edits.push(...(dc.edits as TextEdit[]));
  const withOffsets = edits.map((e) => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), newText: e.newText }));
  withOffsets.sort((a, b) => b.start - a.start || b.end - a.end);
  for (const e of withOffsets) text = text.slice(0, e.start) + e.newText + text.slice(e.end);
  return text;
}

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (ch === 10) starts.push(i + 1);
  }
  return starts;
}

export function offsetAt(text: string, pos: Position): number {
  const starts = lineStarts(text);
  if (pos.line >= starts.length) return text.length;
  const lineStart = starts[Math.max(0, pos.line)]!;
  const next = pos.line + 1 < starts.length ? starts[pos.line + 1]! : text.length;
  return Math.min(lineStart + Math.max(0, pos.character), next);
}

export function positionAt(text: string, offset: number): Position {
  const starts = lineStarts(text);
  offset = Math.max(0, Math.min(offset, text.length));
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo]! };
}

/** Position of the first occurrence of `needle` (after `from`), plus `delta` characters. */
export function find(text: string, needle: string, delta = 0, from = 0): Position {
  const i = text.indexOf(needle, from);
  if (i < 0) throw new Error(`'${needle}' not found`);
  return positionAt(text, i + delta);
}

/** Expected diagnostics of a corpus file: `// @expect CS1234 [CS…]` markers → sorted "CODE:line" list. */
export function expectedMarkers(text: string): string[] {
  const out: string[] = [];
  text.split(/\r\n|\r|\n/).forEach((line, i) => {
    const m = /\/\/\s*@expect\s+((?:CS\d{4}[\s,]*)+)/.exec(line);
    if (m) for (const code of m[1]!.trim().split(/[\s,]+/)) if (code) out.push(`${code}:${i + 1}`);
  });
  return out.sort();
}

export function pairs(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${String(d.code)}:${d.range.start.line + 1}`).sort();
}

export function corpusFiles(kind: "valid" | "invalid"): string[] {
  const dir = path.join(CORPUS, kind);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => /\.(m|c)?ts$/.test(f) && !f.endsWith(".ref.ts") && !f.endsWith(".d.ts"))
    .sort()
    .map((f) => path.join(dir, f));
}

/** A fresh temporary directory for files that must exist on disk (import resolution reads the disk). */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(require("node:os").tmpdir()), prefix));
}
