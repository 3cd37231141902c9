/**
 * The results panel (runs inside the webview; bundled by esbuild into dist/webview.js with uPlot).
 * Every value shown comes from a running program: the DOM is built with textContent only, never HTML.
 */
import uPlot from "uplot";
import type { FromWebview, PanelState, RenderedSummary, ResultRecord, RunInfo, RunStatus, ToWebview } from "./messages";
import { renderProfile, type ProfileMessage } from "./profile-section";

type LaunchRecord = Extract<ResultRecord, { type: "launch" }>;
type ArrayRecord = Extract<ResultRecord, { type: "array" }>;
type FindingRecord = Extract<ResultRecord, { type: "finding" }>;
type RunRecord = Extract<ResultRecord, { type: "run" }>;

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): PanelState | undefined;
  setState(state: PanelState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();

// ---------------------------------------------------------------- state
let run: RunInfo | undefined;
let runRecord: RunRecord | undefined;
let status: RunStatus | undefined;
let launches: LaunchRecord[] = [];
let arrays: ArrayRecord[] = [];
let findings: FindingRecord[] = [];
let logs: string[] = [];
let output = "";
let profile: ProfileMessage | undefined;
let renderedArrays = 0;
const charts: uPlot[] = [];
const summaryArrays: RenderedSummary["arrays"] = [];

// ---------------------------------------------------------------- DOM helpers
type Attrs = Record<string, string | number | boolean | undefined>;
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string | undefined | false)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === "class") el.className = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== undefined && c !== false) el.append(typeof c === "string" ? document.createTextNode(c) : c);
  return el;
}
const $ = (id: string) => document.getElementById(id)!;

function fmt(v: number | null | undefined, digits = 6): string {
  if (v === null || v === undefined) return "NaN/Inf";
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-4 || a >= 1e9)) return v.toExponential(Math.max(1, digits - 2));
  return String(Number(v.toPrecision(digits)));
}
function ms(v: number | undefined): string {
  if (v === undefined || v === null) return "—";
  return v < 1 ? `${v.toFixed(3)} ms` : v < 100 ? `${v.toFixed(2)} ms` : `${v.toFixed(0)} ms`;
}
function dims(d: readonly number[]): string {
  return d.length === 1 || (d[1] === 1 && d[2] === 1) ? String(d[0]) : d.filter((x, i) => i < 2 || x !== 1).join("×");
}
function shapeText(shape: readonly number[]): string {
  return `[${shape.join("×")}]`;
}

function sourceLink(file: string | undefined, line: number | undefined, label?: string): HTMLElement | string {
  if (!file) return label ?? "";
  const base = file.split(/[\\/]/).pop() ?? file;
  const a = h("a", { href: "#", class: "source-link", title: `${file}${line ? `:${line}` : ""}`, "data-file": file, "data-line": line ?? 1 }, label ?? `${base}${line ? `:${line}` : ""}`);
  a.addEventListener("click", (e) => {
    e.preventDefault();
    vscode.postMessage({ type: "open", file, line: line ?? 1 });
  });
  return a;
}

// ---------------------------------------------------------------- header and status
function renderHeader(): void {
  const title = $("title");
  title.textContent = run ? run.title : "No run yet";
  const meta = $("meta");
  meta.replaceChildren();
  if (runRecord) {
    meta.append(h("span", { class: "pill", "data-testid": "backend" }, runRecord.backend === "gpu" ? "GPU" : "Simulator"), " ", h("span", { class: "device" }, runRecord.device));
  }
  if (run) meta.append(h("span", { class: "muted" }, `  ${run.command}`));
  const st = $("status");
  st.replaceChildren();
  const s = status?.state ?? (run ? "running" : undefined);
  if (!s) return;
  const label: Record<string, string> = { running: "Running…", ok: "Finished", failed: "Failed", timeout: "Timed out", cancelled: "Cancelled" };
  st.className = `status status-${s}`;
  st.setAttribute("data-state", s);
  st.append(h("span", { class: "status-label" }, label[s] ?? s));
  if (status?.exitCode !== undefined && status.exitCode !== null) st.append(` · exit code ${status.exitCode}`);
  if (status?.durationMs !== undefined) st.append(` · ${(status.durationMs / 1000).toFixed(2)} s`);
  if (status?.message) st.append(h("div", { class: "status-message" }, status.message));
  if (status?.debugFault && s === "failed") {
    const b = h("button", { class: "debug-fault", "data-testid": "debug-fault" }, "Debug this fault");
    b.addEventListener("click", () => vscode.postMessage({ type: "debugFault" }));
    st.append(b);
  }
}

// ---------------------------------------------------------------- launches
function renderLaunches(): void {
  const sec = $("launches");
  sec.replaceChildren();
  if (!launches.length) {
    sec.append(h("p", { class: "muted" }, status && status.state !== "running" ? "No kernel launches were reported." : "Waiting for kernel launches…"));
    return;
  }
  const head = h("tr", {}, ...["#", "kernel", "grid × block", "shared", "backend", "compile", "host→device", "kernel", "device→host", "occupancy"].map((t) => h("th", {}, t)));
  const rows = launches.flatMap((l) => {
    const occ = l.occupancy;
    const occCell = occ
      ? h("td", { title: occ.limitedBy.length ? `limited by ${occ.limitedBy.join(", ")}` : "" }, `${Math.round(occ.percent)}% (${occ.arch})`, occ.limitedBy.length ? h("div", { class: "muted small" }, `limited by ${occ.limitedBy.join(", ")}`) : undefined, occ.registers ? h("div", { class: "muted small" }, `${occ.registers} registers`) : undefined)
      : h("td", { class: "muted" }, "—");
    const row = h(
      "tr",
      { class: l.error ? "launch-row launch-failed" : "launch-row", "data-kernel": l.kernel },
      h("td", {}, String(l.id)),
      h("td", {}, l.file ? sourceLink(l.file, l.line, l.kernel) : l.kernel),
      h("td", { class: "mono" }, `${dims(l.grid)} × ${dims(l.block)}`),
      h("td", {}, l.sharedMemBytes ? `${l.sharedMemBytes} B` : "—"),
      h("td", {}, l.backend === "gpu" ? "GPU" : "Simulator"),
      h("td", { class: "num timing", "data-timing": "compile" }, ms(l.timings.compileMs)),
      h("td", { class: "num timing", "data-timing": "h2d" }, ms(l.timings.hostToDeviceMs)),
      l.error ? h("td", { "data-timing": "kernel" }, h("span", { class: "badge" }, `failed${l.error.code ? `: ${l.error.code}` : ""}`)) : h("td", { class: "num timing", "data-timing": "kernel" }, ms(l.timings.kernelMs)),
      h("td", { class: "num timing", "data-timing": "d2h" }, ms(l.timings.deviceToHostMs)),
      occCell,
    );
    // A failed launch: its error on the row below, the whole width of the table.
    return l.error ? [row, h("tr", { class: "launch-error" }, h("td", { colspan: 10, class: "launch-error-message" }, l.error.message))] : [row];
  });
  sec.append(scrollX(h("table", { class: "grid launches", "data-testid": "launches" }, h("thead", {}, head), h("tbody", {}, ...rows))));
}

/** A wide table scrolls sideways inside the panel, however narrow the panel is, instead of being cut off. */
function scrollX(el: HTMLElement): HTMLElement {
  return h("div", { class: "scroll-x" }, el);
}

// ---------------------------------------------------------------- findings
function renderFindings(): void {
  const sec = $("findings");
  sec.replaceChildren();
  $("findings-section").hidden = findings.length === 0;
  for (const f of findings) {
    const where: (HTMLElement | string)[] = [];
    if (f.kernel) where.push(`kernel ${f.kernel}`);
    if (f.block) where.push(`block (${f.block.join(", ")})`);
    if (f.thread) where.push(`thread (${f.thread.join(", ")})`);
    sec.append(
      h(
        "div",
        { class: "finding", "data-kind": f.kind },
        h("span", { class: "badge" }, f.kind),
        " ",
        h("span", { class: "finding-message" }, f.message),
        h("div", { class: "muted small" }, where.join(" · "), where.length && f.file ? " · " : "", f.file ? sourceLink(f.file, f.line) : ""),
      ),
    );
  }
}

// ---------------------------------------------------------------- arrays
function renderNewArrays(): void {
  const sec = $("arrays");
  if (arrays.length && renderedArrays === 0) sec.replaceChildren();
  if (!arrays.length && renderedArrays === 0) {
    sec.replaceChildren(h("p", { class: "muted" }, status && status.state !== "running" ? "The program reported no arrays (call report(name, array) to show one here)." : "Waiting for arrays…"));
  }
  for (; renderedArrays < arrays.length; renderedArrays++) sec.append(arrayCard(arrays[renderedArrays]!));
}

function arrayCard(a: ArrayRecord): HTMLElement {
  const card = h("div", { class: "array-card", "data-name": a.name });
  const total = a.shape.reduce((x, y) => x * y, 1);
  card.append(
    h(
      "div",
      { class: "array-head" },
      h("span", { class: "array-name" }, a.name),
      " ",
      h("span", { class: "mono muted" }, `${a.dtype}${shapeText(a.shape)}`),
      a.launchId ? h("span", { class: "muted" }, ` · launch #${a.launchId}`) : undefined,
      a.truncated ? h("span", { class: "muted" }, ` · showing the first ${a.data.length.toLocaleString()} of ${total.toLocaleString()} values`) : undefined,
    ),
  );
  const s = a.stats;
  const stat = (k: string, v: string, cls = "") => h("div", { class: `stat ${cls}` }, h("div", { class: "stat-k" }, k), h("div", { class: "stat-v", "data-stat": k }, v));
  card.append(
    h(
      "div",
      { class: "stats" },
      stat("min", fmt(s.min)),
      stat("max", fmt(s.max)),
      stat("mean", fmt(s.mean)),
      stat("NaN", String(s.nanCount), s.nanCount ? "bad" : ""),
      stat("Inf", String(s.infCount), s.infCount ? "bad" : ""),
      stat("count", total.toLocaleString()),
    ),
  );
  if (a.diff) {
    const d = a.diff;
    const ok = d.mismatches === 0;
    card.append(
      h(
        "div",
        { class: `diff ${ok ? "ok" : "bad"}`, "data-testid": "diff" },
        ok ? "✔ matches the reference" : `✖ ${d.mismatches.toLocaleString()} mismatch${d.mismatches === 1 ? "" : "es"} against the reference`,
        ` · max |error| ${fmt(d.maxAbsError, 3)} · tolerance ${fmt(d.tolerance, 3)}`,
        d.firstMismatch !== undefined ? ` · first at ${indexText(a.shape, d.firstMismatch)}` : "",
      ),
    );
  }
  const values = a.data;
  let chart: RenderedSummary["arrays"][number]["chart"] = "none";
  const viz = h("div", { class: "viz" });
  card.append(viz);
  const rank = a.shape.filter((x, i) => i === 0 || x !== 1).length;
  if (values.length > 0) {
    if (rank >= 2 && a.shape.length >= 2) {
      chart = "heatmap";
      viz.append(heatmap(a));
    } else {
      chart = "line";
      const tabs = h("div", { class: "tabs" });
      const body = h("div", { class: "chart-body" });
      const show = (kind: "line" | "histogram") => {
        body.replaceChildren();
        tabs.querySelectorAll("button").forEach((b) => b.classList.toggle("active", b.getAttribute("data-kind") === kind));
        requestAnimationFrame(() => (kind === "line" ? lineChart(body, values, a.name) : histogram(body, values, a.name)));
      };
      for (const kind of ["line", "histogram"] as const) {
        const b = h("button", { "data-kind": kind }, kind === "line" ? "Line" : "Histogram");
        b.addEventListener("click", () => show(kind));
        tabs.append(b);
      }
      viz.append(tabs, body);
      show("line");
    }
  }
  const table = pagedTable(a, (d) => (a.diff?.firstMismatch === d ? "mismatch" : ""));
  card.append(table.el);
  summaryArrays.push({ name: a.name, shape: [...a.shape], chart, rows: table.rows });
  return card;
}

function indexText(shape: readonly number[], flat: number): string {
  if (shape.length <= 1) return `[${flat}]`;
  const idx: number[] = [];
  let r = flat;
  for (let d = shape.length - 1; d >= 0; d--) {
    idx.unshift(r % shape[d]!);
    r = Math.floor(r / shape[d]!);
  }
  return `[${idx.join(", ")}]`;
}

/** Min/max per bucket so that spikes survive down-sampling. */
function downsample(values: (number | null)[], buckets: number): { x: number[]; lo: (number | null)[]; hi: (number | null)[] } {
  const n = values.length;
  const x: number[] = [], lo: (number | null)[] = [], hi: (number | null)[] = [];
  if (n <= buckets * 2) {
    for (let i = 0; i < n; i++) {
      x.push(i);
      lo.push(values[i]!);
      hi.push(values[i]!);
    }
    return { x, lo, hi };
  }
  const step = n / buckets;
  for (let b = 0; b < buckets; b++) {
    const s = Math.floor(b * step), e = Math.min(n, Math.floor((b + 1) * step));
    let mn = Infinity, mx = -Infinity;
    for (let i = s; i < e; i++) {
      const v = values[i];
      if (v === null || v === undefined || !Number.isFinite(v)) continue;
      if (v < mn) mn = v;
      if (v > mx) mx = v;
    }
    x.push(s);
    lo.push(mn === Infinity ? null : mn);
    hi.push(mx === -Infinity ? null : mx);
  }
  return { x, lo, hi };
}

function css(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

function chartWidth(el: HTMLElement): number {
  return Math.max(320, Math.min(1100, (el.clientWidth || document.body.clientWidth || 800) - 8));
}

function lineChart(el: HTMLElement, values: (number | null)[], name: string): void {
  const { x, lo, hi } = downsample(values, 1500);
  const same = lo === hi || lo.every((v, i) => v === hi[i]);
  const fg = css("--vscode-foreground", "#ccc");
  const grid = css("--vscode-editorWidget-border", "rgba(128,128,128,0.3)");
  const accent = css("--vscode-charts-blue", "#3794ff");
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const series: uPlot.Series[] = [{ label: "index" }, { label: same ? name : `${name} (max)`, stroke: accent, width: 1 }];
  const data: uPlot.AlignedData = same ? [x, hi] : [x, hi, lo];
  if (!same) series.push({ label: `${name} (min)`, stroke: accent, width: 1 });
  const opts: uPlot.Options = {
    width: chartWidth(el),
    height: 220,
    scales: { x: { time: false } },
    axes: [axis, axis],
    series,
    bands: same ? undefined : [{ series: [1, 2], fill: accent + "40" }],
    legend: { show: true },
  };
  charts.push(new uPlot(opts, data, el));
}

function histogram(el: HTMLElement, values: (number | null)[], name: string): void {
  let mn = Infinity, mx = -Infinity;
  for (const v of values) if (v !== null && Number.isFinite(v)) (v < mn && (mn = v), v > mx && (mx = v));
  if (mn === Infinity) {
    el.append(h("p", { class: "muted" }, "No finite values."));
    return;
  }
  const bins = mn === mx ? 1 : 60;
  const width = (mx - mn) / bins || 1;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) if (v !== null && Number.isFinite(v)) counts[Math.min(bins - 1, Math.floor((v - mn) / width))]!++;
  const xs = counts.map((_, i) => mn + i * width);
  const fg = css("--vscode-foreground", "#ccc");
  const grid = css("--vscode-editorWidget-border", "rgba(128,128,128,0.3)");
  const accent = css("--vscode-charts-orange", "#d18616");
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const bars = uPlot.paths.bars?.({ size: [0.9, 100], align: 1 });
  charts.push(
    new uPlot(
      {
        width: chartWidth(el),
        height: 220,
        scales: { x: { time: false, range: [mn, mn + bins * width] } },
        axes: [axis, axis],
        series: [{ label: "value" }, { label: `${name} count`, stroke: accent, fill: accent + "99", paths: bars, points: { show: false } }],
      },
      [xs, counts],
      el,
    ),
  );
}

/** 256-entry colour map (viridis-like control points, linearly interpolated). */
const LUT = (() => {
  const stops = [
    [68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142], [31, 158, 137],
    [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37],
  ];
  const out = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (stops.length - 1);
    const k = Math.min(stops.length - 2, Math.floor(t));
    const f = t - k;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = stops[k]![c]! + (stops[k + 1]![c]! - stops[k]![c]!) * f;
  }
  return out;
})();

function heatmap(a: ArrayRecord): HTMLElement {
  const wrap = h("div", { class: "heatmap-wrap" });
  const [d0 = 1, d1 = 1, d2] = a.shape;
  const is3 = a.shape.length >= 3 && (d2 ?? 1) > 1;
  const rows = is3 ? d1 : d0;
  const cols = is3 ? d2! : d1;
  const slices = is3 ? d0 : 1;
  const canvas = h("canvas", { class: "heatmap", width: cols, height: rows, "data-rows": rows, "data-cols": cols });
  const scale = Math.max(1, Math.min(8, Math.floor(512 / Math.max(rows, cols))));
  canvas.style.width = `${Math.min(720, cols * scale)}px`;
  canvas.style.aspectRatio = `${cols} / ${rows}`;
  const info = h("div", { class: "muted small mono heat-info" }, `${rows} rows × ${cols} columns · hover for values`);
  let slice = 0;
  const lo = a.stats.min, hi = a.stats.max;
  const draw = () => {
    const ctx = canvas.getContext("2d")!;
    const img = ctx.createImageData(cols, rows);
    const base = slice * rows * cols;
    const span = hi - lo || 1;
    for (let i = 0; i < rows * cols; i++) {
      const v = a.data[base + i];
      const o = i * 4;
      if (v === undefined) {
        img.data[o + 3] = 0;
        continue;
      }
      if (v === null || !Number.isFinite(v)) {
        img.data.set([255, 0, 255, 255], o);
        continue;
      }
      const k = Math.max(0, Math.min(255, Math.round(((v - lo) / span) * 255))) * 3;
      img.data[o] = LUT[k]!;
      img.data[o + 1] = LUT[k + 1]!;
      img.data[o + 2] = LUT[k + 2]!;
      img.data[o + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  };
  canvas.addEventListener("mousemove", (e) => {
    const r = canvas.getBoundingClientRect();
    const c = Math.floor(((e.clientX - r.left) / r.width) * cols);
    const row = Math.floor(((e.clientY - r.top) / r.height) * rows);
    if (c < 0 || row < 0 || c >= cols || row >= rows) return;
    const v = a.data[slice * rows * cols + row * cols + c];
    info.textContent = `${is3 ? `[${slice}]` : ""}[${row}][${c}] = ${v === undefined ? "(not sent)" : fmt(v)}`;
  });
  const bar = h("div", { class: "colorbar" }, h("span", {}, fmt(lo)), h("canvas", { class: "colorbar-scale", width: 256, height: 1 }), h("span", {}, fmt(hi)));
  const barCanvas = bar.querySelector("canvas")!;
  const bctx = barCanvas.getContext("2d");
  if (bctx) {
    const bi = bctx.createImageData(256, 1);
    for (let i = 0; i < 256; i++) bi.data.set([LUT[i * 3]!, LUT[i * 3 + 1]!, LUT[i * 3 + 2]!, 255], i * 4);
    bctx.putImageData(bi, 0, 0);
  }
  wrap.append(canvas, bar, info);
  if (is3) {
    const input = h("input", { type: "range", min: 0, max: slices - 1, value: 0 });
    const label = h("span", { class: "muted small" }, `slice 0 of ${slices}`);
    input.addEventListener("input", () => {
      slice = Number(input.value);
      label.textContent = `slice ${slice} of ${slices}`;
      draw();
    });
    wrap.append(h("div", {}, input, " ", label));
  }
  draw();
  return wrap;
}

/** A table of the values, 10 per row for 1-D data and one matrix row per row for N-D, paged. */
function pagedTable(a: ArrayRecord, cellClass: (flat: number) => string): { el: HTMLElement; rows: number } {
  const nd = a.shape.length >= 2;
  const cols = nd ? a.shape[a.shape.length - 1]! : 10;
  const totalRows = Math.ceil(a.data.length / cols);
  const rowsPerPage = 10;
  const colsPerPage = nd ? 12 : 10;
  let page = 0, colPage = 0;
  const pages = Math.max(1, Math.ceil(totalRows / rowsPerPage));
  const colPages = Math.max(1, Math.ceil(cols / colsPerPage));
  const el = h("div", { class: "table-wrap" });
  const table = h("table", { class: "grid values", "data-testid": "values" });
  const nav = h("div", { class: "pager" });
  const label = h("span", { class: "muted small" });
  const mk = (text: string, fn: () => void) => {
    const b = h("button", {}, text);
    b.addEventListener("click", fn);
    return b;
  };
  const go = h("input", { type: "number", min: 0, placeholder: nd ? "row" : "index", class: "goto" });
  go.addEventListener("change", () => {
    const v = Math.max(0, Math.floor(Number(go.value) || 0));
    page = Math.min(pages - 1, Math.floor((nd ? v : Math.floor(v / cols)) / rowsPerPage));
    draw();
  });
  nav.append(mk("⟨⟨", () => ((page = 0), draw())), mk("⟨", () => ((page = Math.max(0, page - 1)), draw())), label, mk("⟩", () => ((page = Math.min(pages - 1, page + 1)), draw())), mk("⟩⟩", () => ((page = pages - 1), draw())), " go to ", go);
  if (nd && colPages > 1) nav.append(" columns ", mk("◀", () => ((colPage = Math.max(0, colPage - 1)), draw())), mk("▶", () => ((colPage = Math.min(colPages - 1, colPage + 1)), draw())));
  const draw = () => {
    const r0 = page * rowsPerPage;
    const c0 = nd ? colPage * colsPerPage : 0;
    const c1 = Math.min(cols, c0 + colsPerPage);
    const head = h("tr", {}, h("th", {}, nd ? "row" : "index"));
    for (let c = c0; c < c1; c++) head.append(h("th", {}, nd ? String(c) : `+${c}`));
    const body = h("tbody");
    for (let r = r0; r < Math.min(totalRows, r0 + rowsPerPage); r++) {
      const tr = h("tr", {}, h("th", {}, String(nd ? r : r * cols)));
      for (let c = c0; c < c1; c++) {
        const flat = r * cols + c;
        tr.append(flat < a.data.length ? h("td", { class: `num ${cellClass(flat)}` }, fmt(a.data[flat])) : h("td"));
      }
      body.append(tr);
    }
    table.replaceChildren(h("thead", {}, head), body);
    label.textContent = ` page ${page + 1} of ${pages}${nd && colPages > 1 ? `, columns ${c0}–${c1 - 1} of ${cols}` : ""} `;
  };
  draw();
  el.append(nav, scrollX(table));
  return { el, rows: totalRows };
}

// ---------------------------------------------------------------- output
function renderLogsAndOutput(): void {
  const pre = $("output");
  const text = output + (logs.length ? (output ? "\n" : "") + logs.join("\n") : "");
  pre.textContent = text || (status && status.state !== "running" ? "(no output)" : "");
  $("output-section").hidden = !text && !(status && status.state !== "running");
}

// ---------------------------------------------------------------- messages
let pending = false;
function schedule(): void {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    renderHeader();
    renderLaunches();
    renderFindings();
    renderNewArrays();
    renderLogsAndOutput();
    const profiled = renderProfile($("profile"), profile, (file, line) => vscode.postMessage({ type: "open", file, line }));
    const summary: RenderedSummary = {
      state: status?.state ?? (run ? "running" : "none"),
      launches: launches.length,
      arrays: summaryArrays.slice(),
      findings: findings.length,
      timingsShown: document.querySelectorAll("td.timing").length > 0,
      ...(profiled ? { profile: profiled } : {}),
    };
    vscode.postMessage({ type: "rendered", summary });
  });
}

let resultsFile: string | undefined;
/** The profile report shown, persisted so that a reloaded panel shows it again. */
let profileFile: string | undefined;
function reset(info: RunInfo, file: string): void {
  run = info;
  resultsFile = file;
  profileFile = undefined;
  runRecord = undefined;
  status = undefined;
  launches = [];
  arrays = [];
  findings = [];
  logs = [];
  output = "";
  profile = undefined;
  renderedArrays = 0;
  summaryArrays.length = 0;
  for (const c of charts.splice(0)) c.destroy();
  $("arrays").replaceChildren();
  persist();
}

function persist(): void {
  if (!run || !resultsFile) return;
  vscode.setState({ resultsFile, run, status, output: output.slice(-20000), ...(profileFile ? { profileFile } : {}) });
}

window.addEventListener("message", (event: MessageEvent<ToWebview>) => {
  const m = event.data;
  switch (m.type) {
    case "reset":
      reset(m.run, m.resultsFile);
      break;
    case "records":
      for (const r of m.records) {
        if (r.type === "run") runRecord = r;
        else if (r.type === "launch") launches.push(r);
        else if (r.type === "array") arrays.push(r);
        else if (r.type === "finding") findings.push(r);
        else if (r.type === "log") logs.push(r.text);
      }
      break;
    case "output":
      output += m.text;
      if (output.length > 200_000) output = "…\n" + output.slice(-150_000);
      break;
    case "status":
      status = m.status;
      persist();
      break;
    case "profile":
      profile = m.profile;
      profileFile = m.file;
      persist();
      break;
    default:
      return;
  }
  schedule();
});

// ---------------------------------------------------------------- start
renderHeader();
vscode.postMessage({ type: "ready" });
