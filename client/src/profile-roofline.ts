/**
 * The roofline chart of a profiled launch: the profiler's estimate for a GPU (its memory bandwidth and
 * peak FLOP rate, the launch's arithmetic intensity) placed on log-log axes as plain geometry, which the
 * webview draws as a small SVG. No charting library: two lines and a point. Imports nothing.
 */

/** The estimate, read from the profile's `roofline` record (field names tolerated as the profiler spells them). */
export interface Roofline {
  readonly gpu: string;
  /** Bytes per second the GPU's memory moves at best, in GB/s. */
  readonly bandwidthGBs: number;
  /** Peak FLOP rate, in GFLOP/s. */
  readonly peakGflops: number;
  /** FLOPs per byte of DRAM traffic of the launch. */
  readonly intensity: number;
  /** min(peak, bandwidth × intensity): the best the launch can do on that GPU. */
  readonly attainableGflops: number;
  readonly bound: "memory" | "compute";
  /** The lower bound on the launch's time, as the profiler words it (e.g. "≥ 1.9 µs"), when given. */
  readonly time?: string;
  readonly precision?: string;
  /** The profiler's own words on what the estimate is, when it gives them. */
  readonly label?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function pick(r: Record<string, unknown>, ...patterns: RegExp[]): number | undefined {
  for (const re of patterns)
    for (const [k, v] of Object.entries(r)) {
      if (!re.test(k)) continue;
      if (typeof v === "number" && Number.isFinite(v) && v > 0) return v;
      if (isRecord(v) && typeof v.value === "number" && v.value > 0) return v.value;
    }
  return undefined;
}

/** The roofline estimate of a launch, or undefined when the profile has none (or not enough of one to draw). */
export function rooflineOf(launch: { readonly roofline?: unknown; readonly derived?: unknown }): Roofline | undefined {
  // `derived.estimate` is where cudascript profile puts it; a top-level `roofline` is read too
  const r = launch.roofline ?? (isRecord(launch.derived) ? launch.derived.estimate : undefined);
  if (!isRecord(r)) return undefined;
  const gpuRec = isRecord(r.gpu) ? r.gpu : undefined;
  const all = { ...(gpuRec ?? {}), ...r };
  // GB/s, or bytes/s when the name says so
  const gbs = pick(all, /^(memory)?bandwidthGB(p)?s$/i, /^dramBandwidthGB(p)?s$/i) ?? ((b) => (b ? b / 1e9 : undefined))(pick(all, /^(memory)?bandwidth(BytesPerSecond)?$/i));
  const gflops = pick(all, /^peak(Fp32|Fp64|F32|F64)?GFlops$/i, /^peakGFLOPs?$/i) ?? ((f) => (f ? f / 1e9 : undefined))(pick(all, /^peak(Fp32|Fp64|F32|F64)?Flops(PerSecond)?$/i));
  const derived = isRecord(launch.derived) ? launch.derived : {};
  // a launch without floating-point work (a copy, a transpose) has intensity 0: drawn at the left edge, memory-bound
  const zero = [all.arithmeticIntensity, all.intensity, derived.arithmeticIntensity].some((v) => v === 0);
  const intensity = pick(all, /^arithmeticIntensity$/i, /^intensity$/i) ?? pick(derived, /^arithmeticIntensity$/i) ?? (zero ? 0 : undefined);
  if (!gbs || !gflops || intensity === undefined) return undefined;
  const gpuName = [gpuRec?.name, r.gpuName, r.gpu, r.name, r.arch, gpuRec?.arch].find((x): x is string => typeof x === "string" && x.length > 0) ?? "the chosen GPU";
  const attainable = Math.min(gflops, gbs * intensity);
  const bound = intensity === 0 ? "memory" : typeof r.boundBy === "string" && /compute/i.test(r.boundBy) ? "compute" : typeof r.boundBy === "string" && /memory/i.test(r.boundBy) ? "memory" : gbs * intensity < gflops ? "memory" : "compute";
  const timeRaw = r.timeLowerBound ?? r.lowerBound ?? r.time;
  const seconds = pick(all, /^(timeLowerBound|lowerBound)(Seconds|S)?$/i);
  const micro = pick(all, /^(timeLowerBound|lowerBound)(Us|Micros|Microseconds)$/i);
  const milli = pick(all, /^(timeLowerBound|lowerBound)Ms$/i);
  const time =
    typeof timeRaw === "string" ? timeRaw : micro !== undefined ? `≥ ${short(micro)} µs` : milli !== undefined ? `≥ ${short(milli * 1000)} µs` : seconds !== undefined ? `≥ ${short(seconds * 1e6)} µs` : undefined;
  const precision = typeof r.precision === "string" ? r.precision : undefined;
  const label = typeof r.label === "string" ? r.label : undefined;
  return { gpu: gpuName, bandwidthGBs: gbs, peakGflops: gflops, intensity, attainableGflops: attainable, bound, ...(time ? { time } : {}), ...(precision ? { precision } : {}), ...(label ? { label } : {}) };
}

const short = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toPrecision(2));

export interface RooflinePlot {
  readonly width: number;
  readonly height: number;
  /** The plotting area inside the margins. */
  readonly area: { readonly x: number; readonly y: number; readonly width: number; readonly height: number };
  /** The roof: bandwidth slope up to the ridge, then the flat peak. SVG points "x,y x,y x,y". */
  readonly roof: string;
  readonly ridge: { readonly x: number; readonly y: number; readonly intensity: number };
  readonly point: { readonly x: number; readonly y: number };
  readonly xTicks: { readonly x: number; readonly label: string }[];
  readonly yTicks: { readonly y: number; readonly label: string }[];
}

const pow10Label = (e: number) => (e >= 0 && e <= 4 ? String(10 ** e) : e < 0 && e >= -3 ? String(Number((10 ** e).toFixed(-e))) : `1e${e}`);

/** Log-log geometry: x = FLOP/byte, y = GFLOP/s, decades wide enough to hold the ridge and the launch. */
export function rooflinePlot(r: Roofline, width = 420, height = 240): RooflinePlot {
  const margin = { left: 56, right: 12, top: 12, bottom: 36 };
  const area = { x: margin.left, y: margin.top, width: width - margin.left - margin.right, height: height - margin.top - margin.bottom };
  const ridgeI = r.peakGflops / r.bandwidthGBs;
  // no FLOPs: the launch sits at the left edge, two decades below the ridge
  const shownI = r.intensity > 0 ? r.intensity : ridgeI / 1000;
  const x0 = Math.floor(Math.log10(Math.min(shownI, ridgeI) / 4));
  const x1 = Math.ceil(Math.log10(Math.max(shownI, ridgeI) * 4));
  const yTop = Math.ceil(Math.log10(r.peakGflops * 2));
  const shownG = r.intensity > 0 ? r.attainableGflops : r.bandwidthGBs * 10 ** x0;
  const y0 = Math.floor(Math.log10(Math.min(shownG, r.bandwidthGBs * 10 ** x0) / 2));
  const sx = (i: number) => area.x + ((Math.log10(i) - x0) / (x1 - x0)) * area.width;
  const sy = (g: number) => area.y + area.height - ((Math.log10(g) - y0) / (yTop - y0)) * area.height;
  const p = (x: number, y: number) => `${x.toFixed(1)},${y.toFixed(1)}`;
  const left = 10 ** x0;
  const roof = [p(sx(left), sy(r.bandwidthGBs * left)), p(sx(ridgeI), sy(r.peakGflops)), p(sx(10 ** x1), sy(r.peakGflops))].join(" ");
  const xTicks = [];
  for (let e = x0; e <= x1; e++) xTicks.push({ x: sx(10 ** e), label: pow10Label(e) });
  const yTicks = [];
  for (let e = y0; e <= yTop; e++) yTicks.push({ y: sy(10 ** e), label: pow10Label(e) });
  return {
    width,
    height,
    area,
    roof,
    ridge: { x: sx(ridgeI), y: sy(r.peakGflops), intensity: ridgeI },
    point: r.intensity > 0 ? { x: sx(r.intensity), y: sy(r.attainableGflops) } : { x: sx(10 ** x0), y: sy(shownG) },
    xTicks,
    yTicks,
  };
}
