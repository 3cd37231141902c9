/**
 * C++ identifiers for TypeScript names. Generated code keeps the source names; a name is changed only
 * when it is not a valid C++ identifier, is a C++ keyword or reserved identifier, would hide something
 * the generated code uses (a CUDA built-in, a math function, a helper, a device function), clashes
 * with what the compilers' headers declare (probed-names.generated.ts: macros clash everywhere, other
 * declarations such as `erf` or `y0` only at module scope), or when two different variables of one
 * function share it (JavaScript block scoping, shadowing): then the later variable gets
 * `<name>_<var id>`.
 */
import { PROBED_NAMES } from "./reserved/probed-names.generated";

const CPP_KEYWORDS = [
  "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
  "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
  "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
  "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
  "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
  "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "restrict", "return", "short",
  "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
  "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
  "wchar_t", "while", "xor", "xor_eq", "final", "override", "import", "module",
];

/** Names from CUDA, the C library and the CPU emulation header that generated code may refer to. */
const CUDA_AND_LIBRARY_NAMES = [
  "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "uint3", "int3", "printf", "assert", "malloc",
  "free", "memcpy", "memset", "main", "NULL", "size_t", "ptrdiff_t", "std", "abs", "labs", "llabs", "min", "max", "umin",
  "umax", "llmin", "llmax", "sqrt", "sqrtf", "rsqrt", "rsqrtf", "cbrt", "cbrtf", "exp", "expf", "exp2", "exp2f", "exp10",
  "exp10f", "expm1", "expm1f", "log", "logf", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "sin", "sinf",
  "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2", "atan2f", "sinh", "sinhf",
  "cosh", "coshf", "tanh", "tanhf", "asinh", "asinhf", "acosh", "acoshf", "atanh", "atanhf", "pow", "powf", "hypot",
  "hypotf", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc", "truncf", "fabs", "fabsf", "fmin", "fminf",
  "fmax", "fmaxf", "fma", "fmaf", "fmod", "fmodf", "copysign", "copysignf", "isnan", "isinf", "isfinite", "signbit",
  "nan", "nanf", "atomicAdd", "atomicSub", "atomicAnd", "atomicOr", "atomicXor", "atomicExch", "atomicMax", "atomicMin",
  "atomicInc", "atomicDec", "atomicCAS", "__syncthreads", "clock", "clock64",
];

const VECTOR_BASES = ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong", "float", "double"];

const RESERVED = new Set<string>([
  ...CPP_KEYWORDS,
  ...CUDA_AND_LIBRARY_NAMES,
  ...VECTOR_BASES.flatMap((b) => [1, 2, 3, 4].map((n) => `${b}${n}`)),
  "half", "half2", "nv_bfloat16", "float16", "bfloat16",
]);

/** Reserved by the fixed rules above (not by probing the compilers): these names are never probed. */
export function isReservedByRule(name: string): boolean {
  return RESERVED.has(name) || name.startsWith("__") || /^_[A-Z]/.test(name) || name.startsWith("cs_") || name.startsWith("CUDASCRIPT");
}

// A compiler's list applies to every backend: the emulation's g++ must accept what NVRTC accepts.
const PROBED_ANYWHERE = new Set([...PROBED_NAMES.nvrtc.names.anywhere, ...PROBED_NAMES.gxxEmulation.names.anywhere]);
const PROBED_MODULE_SCOPE = new Set([...PROBED_NAMES.nvrtc.names.moduleScope, ...PROBED_NAMES.gxxEmulation.names.moduleScope]);

/** Whether generated code must not use `name` for a variable or function of its own. */
export function isReserved(name: string): boolean {
  return isReservedByRule(name) || PROBED_ANYWHERE.has(name);
}

/** Whether `name` must not be a kernel, device function or module constant (declared at module scope). */
export function isReservedAtModuleScope(name: string): boolean {
  return isReserved(name) || PROBED_MODULE_SCOPE.has(name);
}

/**
 * A valid C++ identifier close to `name` (JavaScript also allows `$` and non-ASCII letters; a field
 * array of a shared/local record array is named `sh.x`: frontend/lower-records.ts, here `sh_x`).
 */
export function sanitize(name: string): string {
  let s = name.replace(/\$/g, "_S").replace(/\./g, "_").replace(/[^A-Za-z0-9_]/g, (c) => `_u${c.codePointAt(0)!.toString(16)}`);
  if (s === "" || /^[0-9]/.test(s)) s = `v${s}`;
  return s;
}

/** Hands out unique identifiers within one scope (module scope or one function). */
export class NameTable {
  private readonly used = new Set<string>();
  private readonly reserved: (name: string) => boolean;

  /** `moduleScope`: the names declare kernels, device functions or constants (see isReservedAtModuleScope). */
  constructor(
    private readonly parent?: NameTable,
    options: { moduleScope?: boolean } = {},
  ) {
    this.reserved = options.moduleScope ? isReservedAtModuleScope : isReserved;
  }

  has(name: string): boolean {
    return this.used.has(name) || (this.parent?.has(name) ?? false);
  }

  /** Claims `name` verbatim (it must be free). */
  claim(name: string): string {
    this.used.add(name);
    return name;
  }

  /**
   * A free identifier for source name `name`: the sanitized name itself if free and not reserved,
   * otherwise `<name>_<suffix>` (suffix: the variable id when given), then `_2`, `_3`, … until free.
   */
  fresh(name: string, suffix?: string | number): string {
    const reserved = this.reserved;
    const base = sanitize(name);
    if (!reserved(base) && !this.has(base)) return this.claim(base);
    const stem = isReservedByRule(`${base}_x`) ? `v${base}` : base; // reserved by prefix: suffixes would not help
    if (stem !== base && !reserved(stem) && !this.has(stem)) return this.claim(stem);
    let candidate = suffix !== undefined ? `${stem}_${suffix}` : `${stem}_2`;
    for (let n = 2; reserved(candidate) || this.has(candidate); n++) candidate = `${stem}_${suffix ?? ""}${suffix !== undefined ? "_" : ""}${n}`;
    return this.claim(candidate);
  }
}
