/**
 * The two compilers that see generated CUDA C++, as `ProbeCompiler`s, and the candidate names each one's
 * headers hold: NVRTC (its implicitly included headers live inside libnvrtc-builtins) and g++ with
 * test/emulation/cuda_emulation.hpp (the CPU emulation of the generated code).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Nvrtc } from "@cudascript/native-bindings";
import { identifiersIn, type ProbeCompiler } from "./probe";

/** Flags of the emulation build (test/emulation/harness.ts) that change what the headers declare. */
const GXX_FLAGS = ["-std=c++20", "-pthread"];

/** NVRTC at the newest architecture it supports (the headers declare more for newer ones). */
export function nvrtcProbeCompiler(nvrtc: Nvrtc): ProbeCompiler {
  const cc = Math.max(...nvrtc.info.supportedArchs);
  const options = [`--gpu-architecture=compute_${cc}`];
  const description = `NVRTC ${nvrtc.info.version.major}.${nvrtc.info.version.minor} (compute_${cc})`;
  const compile = (source: string) => nvrtc.compile({ source, name: "probe.cu", options });
  return {
    description,
    errorLines(source) {
      const r = compile(source);
      if (r.ok) return new Set();
      const lines = new Set([...r.log.matchAll(/^probe\.cu\((\d+)\): (?:catastrophic )?error/gm)].map((m) => Number(m[1])));
      if (lines.size === 0) throw new Error(`${description} failed without an error in the probe (${r.errorCode}):\n${r.log}`);
      return lines;
    },
    survivingMarkers(source, markers) {
      const r = compile(source);
      if (!r.ok || r.ptx === undefined) throw new Error(`${description}: the macro probe did not compile (${r.errorCode}):\n${r.log}`);
      const entries = new Set([...r.ptx.matchAll(/\.entry (\w+)/g)].map((m) => m[1]!));
      return new Set(markers.filter((m) => entries.has(m)));
    },
  };
}

/** The identifiers of the header text NVRTC includes implicitly (embedded in libnvrtc-builtins). */
export function nvrtcCandidates(nvrtc: Nvrtc): Set<string> {
  const builtins = nvrtc.info.builtinsPath;
  if (!builtins) throw new Error(`no libnvrtc-builtins found next to ${nvrtc.info.path}: its headers are the candidates`);
  return identifiersIn(fs.readFileSync(builtins));
}

/** g++ compiling probes after `#include`-ing the emulation header (as the emulation driver does). */
export function gxxProbeCompiler(gxx: string, emulationHeader: string): ProbeCompiler {
  const version = run(gxx, ["-dumpfullversion"]).stdout.trim();
  const description = `g++ ${version} with ${path.basename(emulationHeader)}`;
  const compile = (source: string, args: string[]) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-probe-"));
    try {
      // -include keeps the probe's line numbers those of `source`.
      fs.writeFileSync(path.join(dir, "probe.cpp"), source);
      return run(gxx, [...GXX_FLAGS, "-w", "-fmax-errors=0", "-include", emulationHeader, ...args, "probe.cpp"], dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  return {
    description,
    errorLines(source) {
      const r = compile(source, ["-fsyntax-only"]);
      if (r.status === 0) return new Set();
      const lines = new Set([...r.stderr.matchAll(/^probe\.cpp:(\d+):\d+: (?:fatal )?error/gm)].map((m) => Number(m[1])));
      if (lines.size === 0) throw new Error(`${description} failed without an error in the probe:\n${r.stderr.slice(0, 4000)}`);
      return lines;
    },
    survivingMarkers(source, markers) {
      const r = compile(source, ["-E", "-P"]);
      if (r.status !== 0) throw new Error(`${description}: the macro probe did not preprocess:\n${r.stderr.slice(0, 4000)}`);
      const words = new Set(r.stdout.match(/\bcs_macro_\d+\b/g) ?? []);
      return new Set(markers.filter((m) => words.has(m)));
    },
  };
}

/** The identifiers g++ sees in the emulation header after preprocessing, macro definitions included. */
export function gxxCandidates(gxx: string, emulationHeader: string): Set<string> {
  const r = run(gxx, [...GXX_FLAGS, "-w", "-E", "-dD", "-x", "c++", emulationHeader]);
  if (r.status !== 0) throw new Error(`g++ could not preprocess ${emulationHeader}:\n${r.stderr.slice(0, 4000)}`);
  // Line markers (`# 12 "/usr/include/math.h"`) name files, not declarations.
  return identifiersIn(Buffer.from(r.stdout.replace(/^# \d+ ".*$/gm, "")));
}

function run(exe: string, args: string[], cwd?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(exe, args, { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw new Error(`${exe} ${args.join(" ")}: ${r.error.message}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
