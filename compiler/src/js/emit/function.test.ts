import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { KernelChecker } from "../../checker/checker";
import type * as IR from "../../ir/nodes";
import type { NStmt } from "../normalize";
import { FnEmitter } from "./function";
import { ModuleEmitter } from "./module";

/**
 * The stepping backend extends FnEmitter by overriding its entry points; it only works if every concern
 * (values, memory, intrinsics, statements) emits subexpressions and statements through them.
 */
class Marking extends FnEmitter {
  override ex(e: IR.Expr): string {
    return e.k === "index" ? `IDX<${super.ex(e)}>` : super.ex(e);
  }
  protected override intrinsic(e: IR.IntrinsicExpr): string {
    return `INTR<${super.intrinsic(e)}>`;
  }
  protected override call(e: IR.CallExpr): string {
    return `CALL<${super.call(e)}>`;
  }
  protected override tstmt(s: NStmt, out: string[]): void {
    out.push(`STMT<${s.k}>`);
    super.tstmt(s, out);
  }
}

const count = (text: string, marker: string) => text.split(marker).length - 1;

describe("FnEmitter's entry points", () => {
  it("every expression, intrinsic, call and statement of every concern goes through the overridable methods", () => {
    const checker = new KernelChecker();
    const file = path.join(__dirname, "__function_test.ts");
    checker.setFileText(
      file,
      `import { cuda, f32, i32 } from "cudascript";
const twice = cuda.device((x: f32): f32 => x * 2);
const dev = cuda.device((a: Float32Array, b: Int32Array, i: i32): f32 => {
  const j = b[b[i]];
  cuda.atomic.add(a, b[j], Math.sqrt(a[j]));
  if (j > 0) {
    a[b[j]] = twice(a[b[0]]);
  }
  return a[j];
});
export const k = cuda.jit((a: Float32Array, b: Int32Array) => { a[0] = dev(a, b, cuda.grid(1)); });
`,
    );
    const r = checker.checkFile(file);
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
    const dev = r.module.deviceFunctions.find((f) => f.name === "dev")!;
    for (const sanitize of [false, true]) {
      const me = new ModuleEmitter(r.module, { sanitize });
      const code = new Marking(me, dev, "device").emitDevice();
      // One marker per element read (each records one read site), nested ones and atomic indices included.
      assert.equal(count(code, "IDX<"), me.sites.filter((s) => s.kind === "read").length);
      assert.equal(count(code, "IDX<"), 8); // b[b[i]], b[j] (atomic), a[j] (sqrt), b[j] (store), a[b[0]], a[j] (return)
      assert.equal(count(code, "INTR<Math.fround(Math.sqrt(IDX<"), 1);
      assert.equal(count(code, "CALL<"), 1);
      assert.deepEqual(code.match(/STMT<\w+>/g), ["STMT<decl>", "STMT<expr>", "STMT<if>", "STMT<assign>", "STMT<return>"]);
    }
  });
});
