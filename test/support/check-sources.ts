/**
 * Test helpers for the compiler's own tests (compiler/src/…/*.test.ts, built by
 * compiler/tsconfig.test.json): check in-memory sources without touching the disk. It reads the
 * compiler through its package entry, as every test under test/ does, so it depends on the compiler
 * and not the other way round (the compiler's sources never import test helpers).
 */
import { KernelChecker, type FileCheck, type IrFunction } from "@cudascript/compiler";

export const VIRTUAL_ROOT = "/virtual/cudascript-test";

export function checkSources(files: Record<string, string>, main = Object.keys(files)[0]!): FileCheck & { checker: KernelChecker } {
  const checker = new KernelChecker();
  for (const [name, text] of Object.entries(files)) checker.setFileText(`${VIRTUAL_ROOT}/${name}`, text);
  return { ...checker.checkFile(`${VIRTUAL_ROOT}/${main}`), checker };
}

/** One kernel source with the usual import line prepended. */
export function checkKernel(body: string): FileCheck {
  return checkSources({ "k.ts": `import { cuda, f32, f64, i32, u32, u8, i16, bool, Array2D, Array3D } from "cudascript";\n${body}` });
}

/** `code@line` pairs (line numbers of the source passed to checkKernel, i.e. without the import line). */
export function codes(r: FileCheck, lineOffset = 1): string[] {
  return r.diagnostics.map((d) => `${d.code}@${d.span.line - lineOffset}`);
}

export function kernel(r: FileCheck, name?: string): IrFunction {
  const k = name ? r.module.kernels.find((f) => f.name === name) : r.module.kernels[0];
  if (!k) throw new Error(`no kernel ${name ?? ""} in ${r.file}`);
  return k;
}
