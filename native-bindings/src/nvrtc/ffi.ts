// Raw koffi declarations of the NVRTC C API. Everything returns nvrtcResult (0 = success) except
// nvrtcGetErrorString; the high-level wrapper in nvrtc.ts turns codes into results.
import { koffi, type LibraryHandle, type TypeObject } from "../koffi";

/** An nvrtcProgram handle as koffi returns it (an opaque pointer). */
export type ProgramHandle = unknown;
/** One-element array koffi writes an out-parameter into. */
export type Out<T> = [T];

export interface NvrtcFunctions {
  nvrtcVersion(major: Out<number>, minor: Out<number>): number;
  nvrtcGetErrorString(result: number): string;
  nvrtcCreateProgram(
    prog: Out<ProgramHandle>,
    source: string,
    name: string,
    numHeaders: number,
    headers: string[] | null,
    includeNames: string[] | null,
  ): number;
  nvrtcDestroyProgram(prog: Out<ProgramHandle>): number;
  nvrtcCompileProgram(prog: ProgramHandle, numOptions: number, options: string[] | null): number;
  nvrtcGetPTXSize(prog: ProgramHandle, size: Out<number>): number;
  nvrtcGetPTX(prog: ProgramHandle, buffer: Uint8Array): number;
  nvrtcGetProgramLogSize(prog: ProgramHandle, size: Out<number>): number;
  nvrtcGetProgramLog(prog: ProgramHandle, buffer: Uint8Array): number;
  // Absent from old NVRTC versions (CUBIN: 11.1, supported archs: 11.2): undefined then.
  nvrtcGetCUBINSize?(prog: ProgramHandle, size: Out<number>): number;
  nvrtcGetCUBIN?(prog: ProgramHandle, buffer: Uint8Array): number;
  nvrtcGetNumSupportedArchs?(count: Out<number>): number;
  nvrtcGetSupportedArchs?(archs: Int32Array): number;
  nvrtcAddNameExpression?(prog: ProgramHandle, nameExpression: string): number;
  nvrtcGetLoweredName?(prog: ProgramHandle, nameExpression: string, loweredName: Out<string | null>): number;
}

// koffi types are process-wide; the program handle type is anonymous so that another module
// declaring its own `_nvrtcProgram` cannot collide with this one.
let types: { program: TypeObject } | undefined;
function nvrtcTypes() {
  types ??= { program: koffi.pointer(koffi.opaque()) };
  return types;
}

/** Declares every NVRTC function in `lib`. Throws if a required symbol is missing (not NVRTC). */
export function bindNvrtc(lib: LibraryHandle): NvrtcFunctions {
  const { program } = nvrtcTypes();
  const sizeOut = koffi.out(koffi.pointer("size_t"));
  const bytesOut = koffi.out(koffi.pointer("uint8_t"));
  const optional = <F>(declare: () => F): F | undefined => {
    try {
      return declare();
    } catch {
      return undefined; // symbol not exported by this NVRTC version
    }
  };
  return {
    nvrtcVersion: lib.func("int nvrtcVersion(_Out_ int *major, _Out_ int *minor)"),
    nvrtcGetErrorString: lib.func("const char *nvrtcGetErrorString(int result)"),
    nvrtcCreateProgram: lib.func("nvrtcCreateProgram", "int", [koffi.out(koffi.pointer(program)), "str", "str", "int", "str *", "str *"]),
    nvrtcDestroyProgram: lib.func("nvrtcDestroyProgram", "int", [koffi.inout(koffi.pointer(program))]),
    // Never koffi's .async: it runs native code on a 128 KiB stack (see isolated.ts).
    nvrtcCompileProgram: lib.func("nvrtcCompileProgram", "int", [program, "int", "str *"]),
    nvrtcGetPTXSize: lib.func("nvrtcGetPTXSize", "int", [program, sizeOut]),
    nvrtcGetPTX: lib.func("nvrtcGetPTX", "int", [program, bytesOut]),
    nvrtcGetProgramLogSize: lib.func("nvrtcGetProgramLogSize", "int", [program, sizeOut]),
    nvrtcGetProgramLog: lib.func("nvrtcGetProgramLog", "int", [program, bytesOut]),
    nvrtcGetCUBINSize: optional(() => lib.func("nvrtcGetCUBINSize", "int", [program, sizeOut])),
    nvrtcGetCUBIN: optional(() => lib.func("nvrtcGetCUBIN", "int", [program, bytesOut])),
    nvrtcGetNumSupportedArchs: optional(() => lib.func("int nvrtcGetNumSupportedArchs(_Out_ int *numArchs)")),
    nvrtcGetSupportedArchs: optional(() => lib.func("nvrtcGetSupportedArchs", "int", [koffi.out(koffi.pointer("int"))])),
    nvrtcAddNameExpression: optional(() => lib.func("nvrtcAddNameExpression", "int", [program, "str"])),
    nvrtcGetLoweredName: optional(() => lib.func("nvrtcGetLoweredName", "int", [program, "str", koffi.out(koffi.pointer("str"))])),
  };
}
