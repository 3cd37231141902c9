// A host-only module: everything a kernel may not do is fine here, so no diagnostics at all.
import { cuda, f32 } from "cudascript";

export enum Mode {
  Fast,
  Precise,
}

export interface RunOptions {
  readonly mode: Mode;
  readonly label?: string;
}

let runs = 0;

export class Runner {
  private readonly history: number[] = [];
  constructor(readonly options: RunOptions) {}

  *steps(n: number): Generator<number> {
    for (let k = 0; k < n; k++) yield k ** 2;
  }

  async run(input: Float32Array): Promise<string> {
    runs++;
    try {
      const copy = input.slice();
      copy.fill(0);
      const total = [...copy].reduce((a, b) => a + b, 0);
      this.history.push(total);
      switch (this.options.mode) {
        case Mode.Fast:
          return `fast ${total} ${this.options.label ?? "unnamed"}`;
        default:
          return JSON.stringify({ total, runs, typeofInput: typeof input });
      }
    } catch (e) {
      throw new Error(`run failed: ${String(e)}`);
    }
  }
}

/** A dtype value used on the host, e.g. to allocate. */
export function allocate(n: number): Float32Array {
  return new f32.arrayType(n);
}

export const describeCuda = (): string => (typeof cuda === "object" ? "cudascript loaded" : "missing");
