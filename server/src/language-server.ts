/**
 * The CudaScript language server: wires the document store, the checker loop, hovers, quick fixes,
 * CodeLens and the custom requests to an LSP connection. Transport-agnostic (the entry point picks
 * stdio or IPC); no editor APIs. Every handler is guarded: an exception is logged to the client's
 * console and answered with an empty result, never a crash.
 */
import { parseArch, type FileCheck } from "@cudascript/compiler";
import {
  CodeActionKind,
  CodeLensRefreshRequest,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  TextDocumentSyncKind,
  TextDocuments,
  type CancellationToken,
  type Connection,
  type InitializeParams,
  type InitializeResult,
} from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { loadBackend, nvrtcDisabled } from "./backend";
import { codeActions } from "./code-actions";
import { codeLenses } from "./code-lens";
import { toLspDiagnostic } from "./diagnostics";
import { DocLinks } from "./doc-links";
import { generatedCode } from "./generated-code";
import { detectLocalGpuArch } from "./gpu";
import { HeapTrim } from "./heap-trim";
import { hover, kernelOccupancy, type HoverContext } from "./hover";
import { listKernels } from "./kernels";
import { renderOccupancyMarkdown } from "./occupancy-view";
import { Positions } from "./positions";
import {
  GeneratedCodeRequest,
  KernelsRequest,
  OccupancyRequest,
  type GeneratedCodeParams,
  type KernelsParams,
  type KernelsResult,
  type OccupancyParams,
  type OccupancyResultData,
} from "./protocol";
import { ResourceService } from "./resources";
import { DEFAULT_SETTINGS, mergeSettings, type ServerSettings } from "./settings";
import { uriToPath } from "./uri";
import { Workspace } from "./workspace";

export const SERVER_NAME = "cudascript-language-server";
const FALLBACK_ARCH = "sm_80";

/** Marker of internal-error log lines (tests look for it). */
export const INTERNAL_ERROR = "[cudascript internal error]";

export function startServer(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  let initOptions: unknown;
  let settings: ServerSettings = DEFAULT_SETTINGS;
  let detectedArch: string | undefined;
  const caps = { configuration: false, configurationDynamic: false, watchedFilesDynamic: false, codeLensRefresh: false };

  const logError = (message: string, err: unknown): void => {
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    try {
      connection.console.error(`${INTERNAL_ERROR} ${message}: ${detail}`);
    } catch {
      process.stderr.write(`${INTERNAL_ERROR} ${message}: ${detail}\n`);
    }
  };

  const arch = (): string => {
    const wanted = settings.targetArch === "auto" ? (detectedArch ?? FALLBACK_ARCH) : settings.targetArch;
    try {
      return parseArch(wanted).name;
    } catch {
      return wanted; // unknown arch: the calculator says so in the hover
    }
  };

  const links = new DocLinks();
  const heapTrim = new HeapTrim();
  const ws: Workspace = new Workspace({
    checked(checked) {
      const diagnostics = checked.result.diagnostics.filter((d) => d.span.file === checked.path).map((d) => toLspDiagnostic(d, positions, links));
      void connection.sendDiagnostics({ uri: checked.uri, version: checked.version, diagnostics });
      resources.schedule(checked.path, checked.result.module, arch(), hasErrors(checked.result));
      heapTrim.checked();
    },
    error: logError,
  });
  const positions = new Positions(ws);
  let initialized = false; // no server → client requests before the client's `initialized`
  const refreshLenses = (): void => {
    if (initialized && caps.codeLensRefresh && settings.codeLens.enabled) connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
  };
  const resources = new ResourceService({ updated: refreshLenses, error: logError });
  const ctx: HoverContext & { nvrtcPath(): string; positions: Positions } = {
    ws,
    positions,
    resources,
    arch,
    nvrtcPath: () => settings.nvrtcPath,
    requestResources: (check: FileCheck) => resources.schedule(check.file, check.module, arch(), hasErrors(check)),
  };

  /** CUDASCRIPT_LSP_FAULT=<handler name> makes that handler throw (tests of the guards below). */
  const fault = process.env.CUDASCRIPT_LSP_FAULT;
  const injectFault = (name: string): void => {
    if (fault === name) throw new Error(`fault injected into ${name} (CUDASCRIPT_LSP_FAULT)`);
  };

  /** Wraps a request handler: exceptions are logged and answered with `fallback`. */
  function guard<P, R>(name: string, fallback: R, handler: (params: P, token: CancellationToken) => R | Promise<R>) {
    return async (params: P, token: CancellationToken): Promise<R> => {
      try {
        injectFault(name);
        return await handler(params, token);
      } catch (err) {
        logError(`${name} failed`, err);
        return fallback;
      }
    };
  }
  function guardNotification<P>(name: string, handler: (params: P) => void | Promise<void>) {
    return (params: P): void => {
      try {
        injectFault(name);
        const r = handler(params);
        if (r instanceof Promise) r.catch((err) => logError(`${name} failed`, err));
      } catch (err) {
        logError(`${name} failed`, err);
      }
    };
  }

  const applySettings = (next: ServerSettings): void => {
    const prev = settings;
    settings = next;
    ws.debounceMs = next.diagnostics.debounceMs;
    links.configure(next.diagnostics.docsUrl);
    resources.enabled = next.resources.enabled;
    resources.debounceMs = next.resources.debounceMs;
    if (next.nvrtcPath !== prev.nvrtcPath) {
      resources.nvrtcPath = next.nvrtcPath;
      resources.reset();
    }
    if (next.targetArch !== prev.targetArch && next.targetArch === "auto") void detectArch();
    if (JSON.stringify(next) !== JSON.stringify(prev)) {
      ws.recheckAll();
      refreshLenses();
    }
  };

  const detectArch = async (): Promise<void> => {
    const found = await detectLocalGpuArch();
    if (found && found !== detectedArch) {
      detectedArch = found;
      connection.console.info(`CudaScript: local GPU is ${found}; occupancy uses it (setting cudascript.targetArch = "auto").`);
      if (settings.targetArch === "auto") {
        ws.recheckAll();
        refreshLenses();
      }
    }
  };

  const pullSettings = async (): Promise<void> => {
    const base = mergeSettings(DEFAULT_SETTINGS, initOptions);
    if (!caps.configuration) return applySettings(base);
    const [section] = (await connection.workspace.getConfiguration([{ section: "cudascript" }])) as unknown[];
    applySettings(mergeSettings(base, section));
  };

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    const c = params.capabilities;
    caps.configuration = !!c.workspace?.configuration;
    caps.configurationDynamic = !!c.workspace?.didChangeConfiguration?.dynamicRegistration;
    caps.watchedFilesDynamic = !!c.workspace?.didChangeWatchedFiles?.dynamicRegistration;
    caps.codeLensRefresh = !!c.workspace?.codeLens?.refreshSupport;
    initOptions = params.initializationOptions;
    try {
      applySettings(mergeSettings(DEFAULT_SETTINGS, initOptions));
    } catch (err) {
      logError("reading initializationOptions failed", err);
    }
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        codeLensProvider: { resolveProvider: false },
      },
      serverInfo: { name: SERVER_NAME, version: serverVersion() },
    };
  });

  connection.onInitialized(
    guardNotification("initialized", async () => {
      initialized = true;
      try {
        if (caps.configurationDynamic) await connection.client.register(DidChangeConfigurationNotification.type, { section: "cudascript" });
        if (caps.watchedFilesDynamic)
          await connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: "**/*.{ts,mts,cts,tsx}" }] });
      } catch (err) {
        connection.console.warn(`CudaScript: the client refused a registration (${err instanceof Error ? err.message : String(err)}); settings and file changes may not be seen.`);
      }
      await pullSettings();
      if (settings.targetArch === "auto") void detectArch();
      const backend = loadBackend();
      connection.console.info(
        `CudaScript language server ${serverVersion()}: target ${arch()}; CUDA C++ generator ${backend.generateCuda ? "present" : "missing"}; ` +
          `NVRTC resource report ${nvrtcDisabled() ? "disabled (CUDASCRIPT_NVRTC=off)" : backend.compileModule ? "enabled" : "unavailable (no compileModule)"}.`,
      );
    }),
  );

  connection.onDidChangeConfiguration(
    guardNotification("didChangeConfiguration", async (change: { settings?: unknown }) => {
      if (caps.configuration) await pullSettings();
      else applySettings(mergeSettings(mergeSettings(DEFAULT_SETTINGS, initOptions), change?.settings));
    }),
  );

  connection.onDidChangeWatchedFiles(
    guardNotification("didChangeWatchedFiles", (params: { changes: { uri: string; type: number }[] }) => {
      for (const ch of params.changes ?? []) {
        const file = uriToPath(ch.uri);
        if (ch.type === FileChangeType.Changed) resources.cancel(file);
        ws.fileChangedOnDisk(file, ch.type !== FileChangeType.Changed);
      }
    }),
  );

  documents.onDidOpen(guardNotification("didOpen", (e: { document: TextDocument }) => ws.opened(e.document)));
  documents.onDidChangeContent(guardNotification("didChange", (e: { document: TextDocument }) => ws.changed(e.document)));
  documents.onDidClose(
    guardNotification("didClose", (e: { document: TextDocument }) => {
      const wasOpen = ws.isOpen(e.document.uri);
      ws.closed(e.document.uri);
      resources.cancel(uriToPath(e.document.uri));
      if (wasOpen) void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
    }),
  );

  connection.onHover(guard("hover", null, (p) => hover(ctx, p.textDocument.uri, p.position)));
  connection.onCodeAction(guard("codeAction", [], (p) => codeActions({ ws, positions, links }, p)));
  connection.onCodeLens(guard("codeLens", [], (p) => (settings.codeLens.enabled ? codeLenses(ctx, p.textDocument.uri) : [])));
  connection.onRequest(
    GeneratedCodeRequest,
    guard("cudascript/generatedCode", { text: "", languageId: "", lineMap: [], error: "internal error (see the server log)" }, (p: GeneratedCodeParams) => generatedCode(ctx, p)),
  );
  connection.onRequest(
    KernelsRequest,
    guard("cudascript/kernels", { kernels: [] }, (p: KernelsParams): KernelsResult => ({ kernels: listKernels(ws, positions, p.uri).map((k) => k.listing) })),
  );
  connection.onRequest(
    OccupancyRequest,
    guard("cudascript/occupancy", null, (p: OccupancyParams): OccupancyResultData | null => {
      const checked = ws.isOpen(p.uri) ? ws.ensureChecked(p.uri)?.result : ws.resultForPath(uriToPath(p.uri));
      const fn = checked?.module.kernels.find((k) => k.name === p.kernel);
      const report = checked && fn && kernelOccupancy(ctx, checked, fn);
      if (!report) return null;
      return {
        kernel: report.kernel,
        arch: report.arch,
        ...(report.unknownArch !== undefined ? { unknownArch: report.unknownArch } : {}),
        registers: report.registers.known ? report.registers.registers : null,
        registersNote: report.registers.known ? undefined : report.registers.reason,
        staticSharedBytes: report.staticSharedBytes,
        dynamicSharedBytes: report.dynamicSharedBytes,
        rows: (report.unknownArch !== undefined ? [] : report.rows).map((r) => ({
          threadsPerBlock: r.threadsPerBlock,
          activeBlocksPerSM: r.result.activeBlocksPerSM,
          occupancy: r.result.occupancy,
          limitedBy: r.result.limitedBy,
          suggestion: r.result.suggestion,
        })),
        markdown: renderOccupancyMarkdown(report),
      };
    }),
  );
  connection.onShutdown(() => {
    ws.dispose();
    heapTrim.dispose();
  });

  process.on("uncaughtException", (err) => logError("uncaught exception", err));
  process.on("unhandledRejection", (err) => logError("unhandled rejection", err));

  documents.listen(connection);
  connection.listen();
}

function hasErrors(check: FileCheck): boolean {
  return check.diagnostics.some((d) => d.severity === "error");
}

export function serverVersion(): string {
  try {
    return (require("../package.json") as { version: string }).version;
  } catch {
    return "0.0.0";
  }
}
