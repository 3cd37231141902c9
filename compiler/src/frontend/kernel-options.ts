/**
 * The options of `cuda.jit(fn, { … })`, read at compile time: each must be a constant the front end can
 * fold, and a wrong one is CS2014 with what to write instead.
 */
import ts from "typescript";
import { Codes, type DiagnosticDefinition } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { stripParensAndNonNull, type ConstValue } from "./constants";
import { DEFAULT_RECURSION_DEPTH, MAX_RECURSION_DEPTH } from "../ir/recursion";

const KERNEL_OPTIONS: Record<string, "boolean" | "registers" | "launchBounds" | "depth"> = {
  recursionDepth: "depth",
  fastmath: "boolean",
  fma: "boolean",
  maxRegisters: "registers",
  launchBounds: "launchBounds",
  lineinfo: "boolean",
  debug: "boolean",
  cache: "boolean",
};

/** CUDA's limit of threads per block on every architecture, so the largest bound that means anything. */
const MAX_THREADS_PER_BLOCK = 1024;
/** The most blocks any architecture keeps resident on one multiprocessor (sm_80 and later: 32). */
const MAX_BLOCKS_PER_SM = 32;

export interface OptionReader {
  fold(e: ts.Expression): ConstValue | undefined;
  report(def: DiagnosticDefinition, node: ts.Node, message: string): void;
}

/** Reads the options object of a kernel; what it cannot accept is reported and left out. */
export function readKernelOptions(node: ts.Expression | undefined, r: OptionReader): IR.KernelOptions {
  if (!node) return {};
  const e = stripParensAndNonNull(node);
  if (!ts.isObjectLiteralExpression(e)) {
    r.report(Codes.InvalidKernelOption, node, "kernel options must be an object literal such as { fastmath: true, maxRegisters: 32 }");
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const p of e.properties) {
    if (!ts.isPropertyAssignment(p) || !(ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) {
      r.report(Codes.InvalidKernelOption, p, "write kernel options as `name: value` pairs");
      continue;
    }
    const name = p.name.text;
    const kind = KERNEL_OPTIONS[name];
    if (!kind) {
      r.report(Codes.InvalidKernelOption, p.name, `unknown kernel option '${name}': the options are ${Object.keys(KERNEL_OPTIONS).join(", ")}`);
      continue;
    }
    if (kind === "launchBounds") {
      const bounds = readLaunchBounds(p.initializer, r);
      if (bounds) out[name] = bounds;
      continue;
    }
    const v = r.fold(p.initializer);
    if (kind === "boolean") {
      if (v && typeof v.value === "boolean") out[name] = v.value;
      else r.report(Codes.InvalidKernelOption, p.initializer, `option '${name}' takes true or false`);
    } else if (kind === "depth") {
      if (v && typeof v.value === "number" && Number.isInteger(v.value) && v.value >= 1 && v.value <= MAX_RECURSION_DEPTH) out[name] = v.value;
      else r.report(Codes.InvalidKernelOption, p.initializer, `option 'recursionDepth' takes a constant whole number of nested calls from 1 to ${MAX_RECURSION_DEPTH} (default ${DEFAULT_RECURSION_DEPTH})`);
    } else {
      if (v && typeof v.value === "number" && Number.isInteger(v.value) && v.value >= 16 && v.value <= 255) out[name] = v.value;
      else r.report(Codes.InvalidKernelOption, p.initializer, `option '${name}' takes a constant whole number of registers from 16 to 255`);
    }
  }
  return out as IR.KernelOptions;
}

/** `launchBounds: maxThreads` or `launchBounds: [maxThreads, minBlocksPerMultiprocessor]`. */
function readLaunchBounds(init: ts.Expression, r: OptionReader): IR.LaunchBounds | undefined {
  const e = stripParensAndNonNull(init);
  const usage = `write launchBounds: maxThreadsPerBlock (1 to ${MAX_THREADS_PER_BLOCK}) or [maxThreadsPerBlock, minBlocksPerMultiprocessor (1 to ${MAX_BLOCKS_PER_SM})], e.g. launchBounds: [256, 2]`;
  const elements = ts.isArrayLiteralExpression(e) ? e.elements : [e];
  if (elements.length < 1 || elements.length > 2 || elements.some((x) => ts.isSpreadElement(x) || ts.isOmittedExpression(x))) {
    r.report(Codes.InvalidKernelOption, init, `option 'launchBounds' takes one or two constant whole numbers: ${usage}`);
    return undefined;
  }
  const wholeIn = (x: ts.Expression, max: number): number | undefined => {
    const v = r.fold(x);
    return v && typeof v.value === "number" && Number.isInteger(v.value) && v.value >= 1 && v.value <= max ? v.value : undefined;
  };
  const maxThreads = wholeIn(elements[0]!, MAX_THREADS_PER_BLOCK);
  if (maxThreads === undefined) {
    r.report(Codes.InvalidKernelOption, elements[0]!, `the maximum threads per block of 'launchBounds' must be a constant whole number from 1 to ${MAX_THREADS_PER_BLOCK}: ${usage}`);
    return undefined;
  }
  if (elements.length === 1) return { maxThreadsPerBlock: maxThreads };
  const minBlocks = wholeIn(elements[1]!, MAX_BLOCKS_PER_SM);
  if (minBlocks === undefined) {
    r.report(Codes.InvalidKernelOption, elements[1]!, `the minimum blocks per multiprocessor of 'launchBounds' must be a constant whole number from 1 to ${MAX_BLOCKS_PER_SM}: ${usage}`);
    return undefined;
  }
  return { maxThreadsPerBlock: maxThreads, minBlocksPerMultiprocessor: minBlocks };
}
