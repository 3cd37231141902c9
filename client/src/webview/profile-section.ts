/**
 * The results panel's Profile section (inside the webview): the worst lines first with their advice;
 * the profiled source with a heat column, coloured by the metric chosen above it; per launch the
 * totals, derived figures and the roofline chart (an SVG, labelled an estimate). Everything it shows comes
 * from a profile of a user's program: text goes in with textContent only, never as HTML.
 */
import { heatLevel, type HeatMetric } from "../profile-model";
import type { FileView, LaunchView, ProfileView, WorstLine } from "../profile-view";

export type ProfileMessage = ProfileView | { readonly problem: string };

export interface ProfileSummary {
  /** Source lines with a heat level above 0 under the default metric. */
  readonly heatLines: number;
  readonly worst: number;
  readonly advice: number;
  readonly rooflines: number;
  readonly problem?: string;
}

type Child = Node | string | undefined | false;
function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | number | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) k === "class" ? (e.className = String(v)) : e.setAttribute(k, String(v));
  for (const c of children) if (c !== undefined && c !== false) e.append(c);
  return e;
}
const SVG = "http://www.w3.org/2000/svg";
function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function figures(title: string, rows: { label: string; value: string }[], testid: string): HTMLElement | undefined {
  if (!rows.length) return undefined;
  return el("div", { class: "profile-figures" }, el("div", { class: "muted small" }, title), el("table", { class: "grid", "data-testid": testid }, el("tbody", {}, ...rows.map((r) => el("tr", {}, el("th", {}, r.label), el("td", { class: "num" }, r.value))))));
}

function rooflineChart(r: NonNullable<LaunchView["roofline"]>): HTMLElement {
  const { plot: p, estimate: e } = r;
  const chart = svg("svg", { class: "roofline", width: p.width, height: p.height, viewBox: `0 0 ${p.width} ${p.height}`, role: "img", "aria-label": `Roofline estimate for ${e.gpu}` });
  const a = p.area;
  chart.append(svg("rect", { x: a.x, y: a.y, width: a.width, height: a.height, class: "roofline-frame" }));
  for (const t of p.xTicks) chart.append(svg("line", { x1: t.x, x2: t.x, y1: a.y, y2: a.y + a.height, class: "roofline-grid" }), svg("text", { x: t.x, y: a.y + a.height + 14, "text-anchor": "middle", class: "roofline-tick" }, t.label));
  for (const t of p.yTicks) chart.append(svg("line", { x1: a.x, x2: a.x + a.width, y1: t.y, y2: t.y, class: "roofline-grid" }), svg("text", { x: a.x - 4, y: t.y + 4, "text-anchor": "end", class: "roofline-tick" }, t.label));
  chart.append(
    svg("text", { x: a.x + a.width / 2, y: p.height - 4, "text-anchor": "middle", class: "roofline-axis" }, "arithmetic intensity (FLOP/byte)"),
    svg("text", { x: 12, y: a.y + a.height / 2, "text-anchor": "middle", transform: `rotate(-90 12 ${a.y + a.height / 2})`, class: "roofline-axis" }, "GFLOP/s"),
    svg("polyline", { points: p.roof, class: "roofline-roof" }),
    svg("circle", { cx: p.point.x, cy: p.point.y, r: 5, class: `roofline-point ${e.bound}` }),
    svg("text", { x: p.point.x + 8, y: p.point.y - 6, class: "roofline-label" }, e.intensity > 0 ? "this launch" : "this launch (no FLOPs)"),
  );
  const caption = `Estimate for ${e.gpu}: ${formatG(e.bandwidthGBs)} GB/s, ${formatG(e.peakGflops)} GFLOP/s peak${e.precision ? ` (${e.precision})` : ""}; ${e.intensity > 0 ? `this launch ${formatG(e.intensity)} FLOP/byte → at most ${formatG(e.attainableGflops)} GFLOP/s, ${e.bound}-bound` : "this launch does no floating-point work (0 FLOP/byte): its bound is memory bandwidth"}${e.time ? `, time ${e.time}` : ""}. ${e.label ? `An ${e.label}.` : "Not a measurement: from the simulator's counts and the GPU's data sheet."}`;
  return el("figure", { class: "roofline-figure", "data-testid": "roofline" }, el("figcaption", {}, el("strong", {}, "Roofline (estimate)"), " ", el("span", { class: "muted small" }, caption)), chart as unknown as Node);
}

const formatG = (v: number) => (v === 0 ? "0" : v >= 100 ? Math.round(v).toLocaleString("en-US") : v >= 1 ? String(Number(v.toPrecision(3))) : v.toPrecision(2));

function launchCard(l: LaunchView, i: number): HTMLElement {
  return el(
    "div",
    { class: "profile-launch", "data-kernel": l.kernel },
    el("div", { class: "array-head" }, el("span", { class: "array-name" }, `${i + 1}. ${l.kernel}`), " ", el("span", { class: "mono muted" }, l.dims)),
    el("div", { class: "profile-launch-body" }, figures("totals", l.totals, "profile-totals"), figures("derived figures", l.derived, "profile-derived"), l.roofline ? rooflineChart(l.roofline) : undefined),
  );
}

function worstList(worst: WorstLine[], open: (file: string, line: number) => void): HTMLElement {
  const list = el("ol", { class: "profile-worst", "data-testid": "profile-worst" });
  for (const w of worst) {
    const link = el("a", { href: "#", class: "source-link", title: `${w.path ?? w.file}:${w.line}` }, `${w.file.split(/[\\/]/).pop()}:${w.line}`);
    link.addEventListener("click", (ev) => {
      ev.preventDefault();
      open(w.path ?? w.file, w.line);
    });
    list.append(
      el(
        "li",
        { class: "profile-worst-line", "data-line": w.line },
        link,
        " ",
        el("code", {}, w.text),
        w.summary ? el("div", { class: "profile-cost" }, w.summary) : undefined,
        ...w.advice.map((a) => el("div", { class: "profile-advice" }, el("strong", {}, "What to do: "), a)),
      ),
    );
  }
  return list;
}

function sourceTable(f: FileView, metric: HeatMetric, open: (file: string, line: number) => void): HTMLElement {
  const max = Math.max(0, ...f.lines.map((l) => l.metrics?.[metric] ?? 0));
  const rows = f.lines.map((l) => {
    const v = l.metrics?.[metric] ?? 0;
    const level = heatLevel(v, max);
    const lineNo = el("td", { class: "profile-ln num" }, String(l.n));
    if (f.path) {
      lineNo.classList.add("clickable");
      lineNo.addEventListener("click", () => open(f.path!, l.n));
    }
    const title = l.counters.map((c) => `${c.label}: ${c.value}`).join("\n") + (l.summary ? `\n${l.summary}` : "");
    return el(
      "tr",
      { class: l.metrics ? "profiled" : "", "data-line": l.n, "data-heat": level, title: title || undefined },
      lineNo,
      el("td", { class: `profile-heat heat-${level} num`, "data-testid": "heat" }, l.metrics ? (v ? v.toLocaleString("en-US") : "0") : ""),
      el("td", { class: "profile-src mono" }, l.text),
    );
  });
  return el(
    "div",
    { class: "profile-file", "data-file": f.file },
    el("div", { class: "muted small" }, f.path ?? f.file, f.missing ? ` — ${f.missing}` : ""),
    el("div", { class: "scroll-x" }, el("table", { class: "profile-source", "data-testid": "profile-source" }, el("thead", {}, el("tr", {}, el("th", {}, "line"), el("th", {}, "heat"), el("th", {}, "source"))), el("tbody", {}, ...rows))),
  );
}

const drawn = new WeakMap<HTMLElement, { profile: ProfileMessage | undefined; summary: ProfileSummary | undefined }>();

/**
 * Draws the section into `root` when the profile is not the one drawn there already (the panel redraws
 * as a run's records stream in; the chosen heat metric stays); returns what was drawn (tests read it).
 */
export function renderProfile(root: HTMLElement, profile: ProfileMessage | undefined, open: (file: string, line: number) => void): ProfileSummary | undefined {
  const last = drawn.get(root);
  if (last && last.profile === profile) return last.summary;
  const summary = draw(root, profile, open);
  drawn.set(root, { profile, summary });
  return summary;
}

function draw(root: HTMLElement, profile: ProfileMessage | undefined, open: (file: string, line: number) => void): ProfileSummary | undefined {
  root.replaceChildren();
  const section = root.closest("section");
  if (section) section.hidden = !profile;
  if (!profile) return undefined;
  if ("problem" in profile) {
    root.append(el("div", { class: "profile-problem", "data-testid": "profile-problem" }, profile.problem));
    return { heatLines: 0, worst: 0, advice: 0, rooflines: 0, problem: profile.problem };
  }
  if (profile.note) root.append(el("p", { class: "muted" }, profile.note));
  // what to fix first, then where it is in the source, then each launch's figures and roofline
  if (profile.worst.length) root.append(el("h3", {}, "Worst lines first"), worstList(profile.worst, open));
  const select = el("select", { "data-testid": "heat-metric" });
  for (const m of profile.metrics) select.append(el("option", { value: m.id }, m.label));
  const files = el("div", { class: "profile-files" });
  const drawFiles = () => files.replaceChildren(...profile.files.map((f) => sourceTable(f, select.value as HeatMetric, open)));
  select.addEventListener("change", drawFiles);
  if (profile.files.length) root.append(el("h3", {}, "Source"), el("label", { class: "small" }, "heat column: ", select), el("span", { class: "muted small" }, " (counts of every launch added up; darker is costlier)"), files);
  drawFiles();
  root.append(el("h3", {}, "Launches"), ...profile.launches.map(launchCard));
  return {
    heatLines: files.querySelectorAll("td.profile-heat:not(.heat-0)").length,
    worst: profile.worst.length,
    advice: profile.worst.reduce((n, w) => n + w.advice.length, 0),
    rooflines: profile.launches.filter((l) => l.roofline).length,
  };
}
