/**
 * The options of every CudaScript bundler plugin. Kept apart from ./core.ts so that the entry points'
 * declarations name no compiler, unplugin or foreign bundler types: a user's type check of
 * `cudascript/esbuild` reads these and the bundler's own plugin type only.
 */
import type { KernelArtifact } from "@cudascript/compiler/artifact";

export interface CudaScriptPluginOptions {
  /**
   * Report checker warnings as bundler warnings (true), not at all (false), or as errors that fail the
   * build ("error"). Default: true, or "error" under CUDASCRIPT_WARNINGS=error.
   */
  readonly warnings?: boolean | "error";
  /** Embed the serialised IR in the artifact (default true; the GPU backend needs it). */
  readonly includeIr?: boolean;
  /** Called with each file's artifact (tools, tests). */
  readonly onArtifact?: (file: string, artifact: KernelArtifact) => void;
  /**
   * Also compile the kernels to PTX for these GPUs ("sm_86", …) with NVRTC at build time and embed
   * it in the artifact, so that the GPU backend loads it without compiling (and an NVRTC error fails
   * the build with the TypeScript location). Without NVRTC nothing is embedded and the GPU backend
   * compiles at load time. `cudascript run` passes the GPU it runs on.
   */
  readonly cudaArchs?: readonly string[];
  /** NVRTC library for `cudaArchs` (default: discovered). */
  readonly nvrtcPath?: string;
}
