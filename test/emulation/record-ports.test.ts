/**
 * Ported programs that pass arrays of C structs (issue 31's proof for records), in their struct form:
 * - Numba's test_record_dtype kernels set_a, set_b (with its coercions from f32 / f64), set_record,
 *   record_read_a and record_read_b, on its record without the complex field `c` (tested in
 *   records.test.ts) and the u8[5] array field `d` (array fields are not supported:
 *   docs/kernel-language.md#records);
 * - Rodinia nn (`struct latLong { float lat, lng; }`: euclid);
 * - Rodinia bfs (`struct Node { int starting; int no_of_edges; }`: Kernel, Kernel2);
 * - Rodinia streamcluster (`struct Point { float weight; float *coord; long assign; float cost; }`:
 *   kernel_compute_cost with its d_dist device function; the pointer field is a u64 the kernel never reads).
 * Each runs on the simulator against plain TypeScript, and through the g++ emulation of the generated
 * C++ (same bytes as the simulator); the C++ also compiles with NVRTC for sm_80 and assembles with ptxas.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { bool, cuda, f32, f64, i32, i64, u64 } from "cudascript";
import type { CorpusCase, HostValue } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { assertCompilesForSm80 } from "../support/toolchain-or-skip";
import { compareArrays, emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, f32, f64, i32, i64, u64, bool, type Array1D } from "cudascript";

// Numba test_record_dtype: recordtype (a: float64, b: int32), align=True.
interface Rec { a: f64; b: i32 }
const Rec = cuda.record({ a: f64, b: i32 });
export const setA = cuda.jit((ary: Array1D<Rec>, i: i32, v: f64) => { ary[i].a = v; });
export const setAFromF32 = cuda.jit((ary: Array1D<Rec>, i: i32, v: f32) => { ary[i].a = v; });
export const setB = cuda.jit((ary: Array1D<Rec>, i: i32, v: i32) => { ary[i].b = v; });
export const setBFromF64 = cuda.jit((ary: Array1D<Rec>, i: i32, v: f64) => { ary[i].b = Math.trunc(v); });
export const setRecord = cuda.jit((ary: Array1D<Rec>, i: i32, j: i32) => { ary[i] = ary[j]; });
// record_read_a / record_read_b: a record argument read in the kernel (by value: docs/kernel-language.md#records).
export const recordReadA = cuda.jit((r: Rec, arr: Array1D<f64>) => { arr[0] = r.a; });
export const recordReadB = cuda.jit((r: Rec, arr: Int32Array) => { arr[0] = r.b; });

// Rodinia nn: struct latLong { float lat; float lng; }.
interface LatLong { lat: f32; lng: f32 }
const LatLong = cuda.record({ lat: f32, lng: f32 });
export const euclid = cuda.jit((locations: Array1D<LatLong>, distances: Array1D<f32>, numRecords: i32, lat: f32, lng: f32) => {
  const globalId = cuda.blockDim.x * (cuda.gridDim.x * cuda.blockIdx.y + cuda.blockIdx.x) + cuda.threadIdx.x;
  if (globalId < numRecords) {
    const latLong = locations[globalId];
    distances[globalId] = Math.sqrt((lat - latLong.lat) * (lat - latLong.lat) + (lng - latLong.lng) * (lng - latLong.lng));
  }
});

// Rodinia bfs: struct Node { int starting; int no_of_edges; }.
interface Node { starting: i32; no_of_edges: i32 }
const Node = cuda.record({ starting: i32, no_of_edges: i32 });
export const bfsKernel = cuda.jit((nodes: Array1D<Node>, edges: Int32Array, mask: Array1D<bool>, updating: Array1D<bool>, visited: Array1D<bool>, cost: Int32Array, noOfNodes: i32) => {
  const tid = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  if (tid < noOfNodes && mask[tid]) {
    mask[tid] = false;
    for (let i = nodes[tid].starting; i < nodes[tid].no_of_edges + nodes[tid].starting; i++) {
      const id = edges[i];
      if (!visited[id]) {
        cost[id] = cost[tid] + 1;
        updating[id] = true;
      }
    }
  }
});
export const bfsKernel2 = cuda.jit((mask: Array1D<bool>, updating: Array1D<bool>, visited: Array1D<bool>, over: Array1D<bool>, noOfNodes: i32) => {
  const tid = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  if (tid < noOfNodes && updating[tid]) {
    mask[tid] = true;
    visited[tid] = true;
    over[0] = true;
    updating[tid] = false;
  }
});

// Rodinia streamcluster: typedef struct { float weight; float *coord; long assign; float cost; } Point;
// the pointer is 8 bytes the kernel never reads (a u64 here), so the struct keeps its 32-byte layout.
interface Point { weight: f32; coord: u64; assign: i64; cost: f32 }
const Point = cuda.record({ weight: f32, coord: u64, assign: i64, cost: f32 });
const dDist = cuda.device((p1: i32, p2: i32, num: i32, dim: i32, coord: Array1D<f32>): f32 => {
  let retval: f32 = 0;
  for (let i = 0; i < dim; i++) {
    const tmp = coord[i * num + p1] - coord[i * num + p2];
    retval += tmp * tmp;
  }
  return retval;
});
export const computeCost = cuda.jit((num: i32, dim: i32, x: i64, p: Array1D<Point>, K: i32, stride: i32, coord: Array1D<f32>, workMem: Array1D<f32>, centerTable: Int32Array, switchMembership: Array1D<bool>) => {
  const bid = cuda.blockIdx.x + cuda.gridDim.x * cuda.blockIdx.y;
  const tid = cuda.blockDim.x * bid + cuda.threadIdx.x;
  if (tid < num) {
    const lower = tid * stride;
    const xCost = dDist(tid, Number(x) | 0, num, dim, coord) * p[tid].weight;
    if (xCost < p[tid].cost) {
      switchMembership[tid] = true;
      workMem[lower + K] += xCost - p[tid].cost;
    } else {
      const assign = Number(p[tid].assign) | 0;
      workMem[lower + centerTable[assign]] += p[tid].cost - xCost;
    }
  }
});

`;

const file = path.join(__dirname, "..", "..", "emulation", `__record_ports_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const art = () => makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
const Rec = cuda.record({ a: f64, b: i32 });
const LatLong = cuda.record({ lat: f32, lng: f32 });
const Node = cuda.record({ starting: i32, no_of_edges: i32 });
const Point = cuda.record({ weight: f32, coord: u64, assign: i64, cost: f32 });
const SC = { num: 300, dim: 4, K: 5, x: 17 };

function streamcluster() {
  const { num, dim, K } = SC;
  const p = cuda.recordArray(Point, num);
  for (let i = 0; i < num; i++) p.set(i, { weight: 1 + (i % 3), coord: 0n, assign: BigInt(i % K), cost: 2 + (i % 11) });
  const coord = Float32Array.from({ length: num * dim }, (_, k) => ((k * 29) % 17) / 4);
  const centerTable = Int32Array.from({ length: num }, (_, i) => (i * 3) % K);
  return { p, coord, centerTable, workMem: new Float32Array(num * (K + 1)), switchMembership: new Uint8Array(num) };
}

function streamclusterReference() {
  const { num, dim, K, x } = SC;
  const s = streamcluster();
  for (let tid = 0; tid < num; tid++) {
    let d = 0;
    for (let i = 0; i < dim; i++) {
      const tmp = Math.fround(s.coord[i * num + tid]! - s.coord[i * num + x]!);
      d = Math.fround(d + Math.fround(tmp * tmp));
    }
    const r = s.p.get(tid);
    const xCost = Math.fround(d * r.weight);
    const lower = tid * (K + 1);
    const at = xCost < r.cost ? lower + K : lower + s.centerTable[Number(r.assign)]!;
    if (xCost < r.cost) s.switchMembership[tid] = 1;
    s.workMem[at] = Math.fround(s.workMem[at]! + Math.fround(xCost < r.cost ? xCost - r.cost : r.cost - xCost));
  }
  return s;
}

function runStreamcluster(s: ReturnType<typeof streamcluster>) {
  const { num, dim, K, x } = SC;
  kernel(art(), "computeCost").launch([3, 2], 64)(num, dim, BigInt(x), s.p, K, K + 1, s.coord, s.workMem, s.centerTable, s.switchMembership);
}

/** Numba's sample: three records, a = (i + 1) / 2, b = i + 1. */
function sample() {
  const r = cuda.recordArray(Rec, 3);
  for (let i = 0; i < 3; i++) r.set(i, { a: (i + 1) / 2, b: i + 1 });
  return r;
}

/** A deterministic graph: node n has edges to (n * 7 + k * 13 + 1) % N for k < n % 4 + 1. */
function graph(nNodes: number) {
  const nodes = cuda.recordArray(Node, nNodes);
  const edges: number[] = [];
  for (let n = 0; n < nNodes; n++) {
    const count = (n % 4) + 1;
    nodes.set(n, { starting: edges.length, no_of_edges: count });
    for (let k = 0; k < count; k++) edges.push((n * 7 + k * 13 + 1) % nNodes);
  }
  return { nodes, edges: Int32Array.from(edges) };
}

function bfsReference(nodes: ReturnType<typeof graph>["nodes"], edges: Int32Array, n: number): Int32Array {
  const cost = new Int32Array(n).fill(-1);
  cost[0] = 0;
  let frontier = [0];
  while (frontier.length) {
    const next: number[] = [];
    for (const t of frontier) {
      const { starting, no_of_edges } = nodes.get(t);
      for (let i = starting; i < starting + no_of_edges; i++) if (cost[edges[i]!] === -1) (cost[edges[i]!] = cost[t]! + 1), next.push(edges[i]!);
    }
    frontier = next;
  }
  return cost;
}

const N_NODES = 500;
const N_LOC = 1000;
const LEVELS = 40; // more bfs rounds than the graph's depth: the extra rounds change nothing

function bfsInputs(): Record<string, HostValue | ReturnType<typeof graph>["nodes"]> {
  const g = graph(N_NODES);
  const mask = new Uint8Array(N_NODES), visited = new Uint8Array(N_NODES), cost = new Int32Array(N_NODES).fill(-1);
  mask[0] = 1;
  visited[0] = 1;
  cost[0] = 0;
  return { nodes: g.nodes, edges: g.edges, mask, updating: new Uint8Array(N_NODES), visited, cost, over: new Uint8Array(1), n: N_NODES };
}

function locations() {
  const loc = cuda.recordArray(LatLong, N_LOC);
  for (let i = 0; i < N_LOC; i++) loc.set(i, { lat: ((i * 37) % 180) - 90 + 0.25, lng: ((i * 53) % 360) - 180 + 0.5 });
  return loc;
}

describe("ported struct programs", () => {
  it("check without errors", () => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  });

  it("Numba test_record_dtype: set_a, set_b (with coercions), set_record on the simulator", () => {
    for (let i = 0; i < 3; i++) {
      for (const [k, v, field, want] of [["setA", 3.1415, "a", 3.1415], ["setAFromF32", 3.0, "a", 3.0], ["setB", 123, "b", 123], ["setBFromF64", 123.0, "b", 123]] as const) {
        const got = sample(), expect = sample();
        kernel(art(), k).launch(1, 1)(got, i, v);
        expect.set(i, { ...expect.get(i), [field]: want });
        assert.deepEqual(got.bytes, expect.bytes, `${k} i=${i}`);
      }
    }
    for (const [i, j] of [[0, 1], [1, 2], [0, 2]] as const) {
      const got = sample(), expect = sample();
      kernel(art(), "setRecord").launch(1, 1)(got, i, j);
      expect.set(i, expect.get(j));
      assert.deepEqual(got.get(i), got.get(j));
      assert.deepEqual(got.bytes, expect.bytes);
    }
  });

  it("Numba test_record_dtype: record_read_a, record_read_b (record arguments) on the simulator", () => {
    const rec = sample().get(0);
    const a = new Float64Array(1), b = new Int32Array(1);
    kernel(art(), "recordReadA").launch(1, 1)({ ...rec, a: 1.5 }, a);
    kernel(art(), "recordReadB").launch(1, 1)({ ...rec, b: 2 }, b);
    assert.equal(a[0], 1.5);
    assert.equal(b[0], 2);
  });

  it("Rodinia nn (latLong) and bfs (Node) on the simulator match plain TypeScript", () => {
    const loc = locations(), dist = new Float32Array(N_LOC);
    kernel(art(), "euclid").launch([8, 2], 64)(loc, dist, N_LOC, 30.5, -90.25);
    for (let i = 0; i < N_LOC; i++) {
      const { lat, lng } = loc.get(i);
      const dl = Math.fround(Math.fround(30.5) - lat), dg = Math.fround(Math.fround(-90.25) - lng);
      assert.equal(dist[i], Math.fround(Math.sqrt(Math.fround(Math.fround(dl * dl) + Math.fround(dg * dg)))));
    }
    const v = bfsInputs() as Record<string, never>;
    const blocks = Math.ceil(N_NODES / 128);
    for (let round = 0; round < LEVELS; round++) {
      kernel(art(), "bfsKernel").launch(blocks, 128)(v.nodes, v.edges, v.mask, v.updating, v.visited, v.cost, N_NODES);
      kernel(art(), "bfsKernel2").launch(blocks, 128)(v.mask, v.updating, v.visited, v.over, N_NODES);
    }
    assert.deepEqual(v.cost, bfsReference(v.nodes, v.edges, N_NODES));
  });

  it("Rodinia streamcluster (Point) on the simulator matches plain TypeScript", () => {
    const s = streamcluster();
    runStreamcluster(s);
    const want = streamclusterReference();
    assert.equal(Point.itemsize, 32);
    assert.deepEqual(s.workMem, want.workMem);
    assert.deepEqual(s.switchMembership, want.switchMembership);
  });

  it("the g++ emulation of the generated C++ leaves the simulator's bytes", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    const bytesOf = (v: Record<string, unknown>) => Object.fromEntries(Object.entries(v).map(([k, x]) => [k, (x as { bytes?: Uint8Array }).bytes ?? x])) as Record<string, HostValue>;
    // bfs + nn in one case: the launches in order, each round of bfs two launches.
    const g = bfsInputs(), loc = locations();
    const launches = [
      { kernel: "euclid", grid: [8, 2] as const, block: 64, args: ["loc", "dist", "nLoc", "lat", "lng"] },
      ...Array.from({ length: LEVELS }, () => [
        { kernel: "bfsKernel", grid: Math.ceil(N_NODES / 128), block: 128, args: ["nodes", "edges", "mask", "updating", "visited", "cost", "n"] },
        { kernel: "bfsKernel2", grid: Math.ceil(N_NODES / 128), block: 128, args: ["mask", "updating", "visited", "over", "n"] },
      ]).flat(),
      { kernel: "setRecord", grid: 1, block: 1, args: ["rec", "zero", "two"] },
      { kernel: "computeCost", grid: [3, 2] as const, block: 64, args: ["scNum", "scDim", "scX", "scP", "scK", "scStride", "scCoord", "scWork", "scCenter", "scSwitch"] },
    ];
    const values = { ...bytesOf(g), loc: loc.bytes, dist: new Float32Array(N_LOC), nLoc: N_LOC, lat: 30.5, lng: -90.25, rec: sample().bytes, zero: 0, two: 2 };
    const sc = streamcluster();
    Object.assign(values, { scNum: SC.num, scDim: SC.dim, scX: BigInt(SC.x), scP: sc.p.bytes, scK: SC.K, scStride: SC.K + 1, scCoord: sc.coord, scWork: sc.workMem, scCenter: sc.centerTable, scSwitch: sc.switchMembership });
    const c: CorpusCase = { name: "record ports", setup: () => values, launches, reference: () => ({}) };
    const { outputs } = await emulateCase(gxx, "record-ports", gen, c, values);
    // The same launches on the simulator.
    const s = bfsInputs() as Record<string, never>, sloc = locations(), sdist = new Float32Array(N_LOC), srec = sample();
    kernel(art(), "euclid").launch([8, 2], 64)(sloc, sdist, N_LOC, 30.5, -90.25);
    for (let round = 0; round < LEVELS; round++) {
      kernel(art(), "bfsKernel").launch(Math.ceil(N_NODES / 128), 128)(s.nodes, s.edges, s.mask, s.updating, s.visited, s.cost, N_NODES);
      kernel(art(), "bfsKernel2").launch(Math.ceil(N_NODES / 128), 128)(s.mask, s.updating, s.visited, s.over, N_NODES);
    }
    kernel(art(), "setRecord").launch(1, 1)(srec, 0, 2);
    const ssc = streamcluster();
    runStreamcluster(ssc);
    assert.equal(compareArrays("scWork", ssc.workMem, outputs.get("scWork")!, { abs: 0, rel: 0 }), undefined);
    assert.equal(compareArrays("scSwitch", ssc.switchMembership, outputs.get("scSwitch")!), undefined);
    assert.equal(compareArrays("dist", sdist, outputs.get("dist")!, { abs: 0, rel: 0 }), undefined);
    assert.equal(compareArrays("cost", s.cost, outputs.get("cost")!), undefined);
    assert.equal(compareArrays("rec", srec.bytes, outputs.get("rec")!), undefined);
    assert.equal(compareArrays("nodes", (s.nodes as { bytes: Uint8Array }).bytes, outputs.get("nodes")!), undefined);
  });

  it("the generated C++ compiles with NVRTC (sm_80) and assembles with ptxas", (t) => {
    assertCompilesForSm80(t, generateCuda(check.module, { lineDirectives: false }).source, "ports.cu");
  });
});
