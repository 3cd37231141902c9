/** Test helpers of the debugger: kernels compiled from text, and their arguments in the executor's form. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { KernelChecker, makeArtifact, type IrModule, type KernelArtifact } from "@cudascript/compiler";
import type { ArgDesc } from "../simulator/executor";
import type { AnyDTypeName } from "../dtypes";

let checker: KernelChecker | undefined;
const written: string[] = [];
process.on("exit", () => {
  for (const f of written) fs.rmSync(f, { force: true });
});
let counter = 0;

/** A kernel file's IR and artifact (it must check without errors); `file` is where its lines are. */
export function compileKernels(text: string): { module: IrModule; artifact: KernelArtifact; file: string } {
  checker ??= new KernelChecker();
  const file = path.join(__dirname, `__debugger_${process.pid}_${counter++}.ts`);
  // On disk too: the debugger compiles its expressions (conditions, watches) against the file.
  fs.writeFileSync(file, text);
  written.push(file);
  checker.setFileText(file, text);
  const r = checker.checkFile(file);
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  assert.deepEqual(errors.map((d) => `${d.span.line}: ${d.code} ${d.message}`), []);
  return { module: r.module, artifact: makeArtifact(r.module, { staticSharedBytes: r.staticSharedBytes }), file };
}

const DTYPES: [new (...a: never[]) => unknown, AnyDTypeName][] = [
  [Float32Array, "f32"],
  [Float64Array, "f64"],
  [Int32Array, "i32"],
  [Uint32Array, "u32"],
];

/** A typed array (1-D) or scalar as the simulator's executor receives it. */
export function argDesc(v: Float32Array | Float64Array | Int32Array | Uint32Array | number): ArgDesc {
  if (typeof v === "number") return { kind: "scalar", value: v };
  const dtype = DTYPES.find(([C]) => v instanceof C)![1];
  return { kind: "array", buffer: v.buffer, byteOffset: v.byteOffset, length: v.length, dtype, shape: [v.length], strides: [1] };
}

/** The line of the first line of `file`'s text that contains `marker`. */
export function lineOf(text: string, marker: string): number {
  const i = text.split("\n").findIndex((l) => l.includes(marker));
  assert.ok(i >= 0, `no line contains ${marker}`);
  return i + 1;
}

/**
 * A DAP client over a child process's stdio, as an editor drives a debug adapter: `request` sends and
 * resolves with the response; `event` resolves with the next event of a kind (events are queued).
 */
export class DapClient {
  private seq = 1;
  private buffer = Buffer.alloc(0);
  private readonly responses = new Map<number, (m: DapMessage) => void>();
  private readonly events: DapMessage[] = [];
  private readonly waiting: { event: string; resolve: (m: DapMessage) => void }[] = [];
  readonly child: ChildProcessWithoutNullStreams;

  constructor(command: string, args: readonly string[]) {
    this.child = spawn(command, args, { stdio: "pipe" });
    this.child.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
  }

  request(command: string, args: unknown = {}): Promise<DapMessage> {
    const seq = this.seq++;
    const body = Buffer.from(JSON.stringify({ seq, type: "request", command, arguments: args }), "utf8");
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
    return new Promise((resolve) => this.responses.set(seq, resolve));
  }

  event(name: string): Promise<DapMessage> {
    const i = this.events.findIndex((e) => e.event === name);
    if (i >= 0) return Promise.resolve(this.events.splice(i, 1)[0]!);
    return new Promise((resolve) => this.waiting.push({ event: name, resolve }));
  }

  /** Every event of this kind received so far. */
  drain(name: string): DapMessage[] {
    const out = this.events.filter((e) => e.event === name);
    for (const e of out) this.events.splice(this.events.indexOf(e), 1);
    return out;
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const head = this.buffer.indexOf("\r\n\r\n");
      if (head < 0) return;
      const length = Number(/Content-Length: (\d+)/.exec(this.buffer.subarray(0, head).toString())![1]);
      if (this.buffer.length < head + 4 + length) return;
      const m = JSON.parse(this.buffer.subarray(head + 4, head + 4 + length).toString("utf8")) as DapMessage;
      this.buffer = this.buffer.subarray(head + 4 + length);
      if (m.type === "response") this.responses.get(m.request_seq!)?.(m);
      else if (m.type === "event") {
        const w = this.waiting.findIndex((x) => x.event === m.event);
        if (w >= 0) this.waiting.splice(w, 1)[0]!.resolve(m);
        else this.events.push(m);
      }
    }
  }
}

export interface DapMessage {
  readonly type: "response" | "event";
  readonly request_seq?: number;
  readonly success?: boolean;
  readonly message?: string;
  readonly event?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body?: any;
}

/** The kernels the debugger feature tests (features.test.ts, dap-features.test.ts) stop in; `// marker` comments name their lines. */
export const FEATURE_KERNELS = `import { cuda, f32, i32 } from "cudascript";
export const feat = cuda.jit((a: Int32Array, out: Float32Array) => {
  const s = cuda.shared.array([4, 8], f32);
  const t = cuda.threadIdx.x;
  let acc: i32 = 0;
  for (let i = 0; i < 16; i++) {
    acc += a[t] + i; // loop body
  }
  s[t >> 3][t & 7] = acc; // shared write
  cuda.syncthreads();
  out[cuda.blockIdx.x * 32 + t] = s[3 - (t >> 3)][t & 7]; // read back
});
export const spin = cuda.jit((out: Int32Array) => {
  const t = cuda.threadIdx.x;
  let k = 0;
  while (true) {
    k = k + 1; // spin body
  }
  out[t] = k;
});
export const shout = cuda.jit((out: Int32Array) => {
  const t = cuda.threadIdx.x;
  if (t === 0) console.log("block", cuda.blockIdx.x);
  out[cuda.blockIdx.x * 4 + t] += 1; // bump
});
`;
