/**
 * Every diagnostic the CudaScript checker can report, with a stable code. Codes never change meaning
 * once published; docs/diagnostics.md has a wrong and a right example for each.
 *
 * Ranges: CS1xxx kernel language (unsupported constructs), CS2xxx types and values, CS3xxx memory and
 * resources, CS4xxx launch configurations, CS5xxx warnings and performance hints.
 */

export type Severity = "error" | "warning" | "hint";

export interface DiagnosticDefinition {
  readonly code: string;
  readonly severity: Severity;
  /** One-line title for docs and code descriptions. */
  readonly title: string;
}

function def(code: string, severity: Severity, title: string): DiagnosticDefinition {
  return { code, severity, title };
}

export const Codes = {
  // CS1xxx — the kernel language
  UnsupportedString: def("CS1001", "error", "Strings are not supported in kernels"),
  UnsupportedLiteral: def("CS1002", "error", "Object and array literals are not supported in kernels"),
  UnsupportedNew: def("CS1003", "error", "`new` and allocation are not supported in kernels"),
  UnsupportedArrayMethod: def("CS1004", "error", "Array methods are not supported in kernels"),
  UnsupportedException: def("CS1005", "error", "try/catch is not supported in kernels"),
  UnsupportedAsync: def("CS1006", "error", "async functions, await and generators are not supported in kernels"),
  Recursion: def("CS1007", "error", "A recursive device function needs its result type written"),
  NotADeviceFunction: def("CS1008", "error", "Only device functions can be called from kernels"),
  UnsupportedClass: def("CS1009", "error", "Classes and `this` are not supported in kernels"),
  MutableCapture: def("CS1010", "error", "Kernels cannot read mutable host state"),
  UnsupportedStatement: def("CS1011", "error", "Unsupported statement in a kernel"),
  UnsupportedExpression: def("CS1012", "error", "Unsupported expression in a kernel"),
  UnsupportedOperator: def("CS1013", "error", "Unsupported operator in a kernel"),
  UnknownCudaApi: def("CS1014", "error", "Unknown `cuda` API"),
  UnknownIdentifier: def("CS1015", "error", "Unknown name in a kernel"),
  NestedFunction: def("CS1016", "error", "Functions cannot be declared inside kernels"),
  EmbeddedAssignment: def("CS1017", "error", "Assignments and `++`/`--` must be statements"),
  UnsupportedDestructuring: def("CS1018", "error", "Unsupported destructuring"),
  KernelNotAFunction: def("CS1019", "error", "`cuda.jit` and `cuda.device` take a function"),
  SyntaxError: def("CS1020", "error", "TypeScript syntax error"),
  TooDeeplyNested: def("CS1021", "error", "Code nested too deeply"),
  NumbaApiUnavailable: def("CS1022", "error", "Numba API not available in CudaScript"),
  KernelLaunchInKernel: def("CS1023", "error", "Kernels cannot launch kernels (dynamic parallelism)"),
  GridGroupMisuse: def("CS1024", "error", "A grid group is only for `g.sync()` in a kernel"),
  UfuncNotAFunction: def("CS1025", "error", "`cuda.vectorize` and `cuda.reduce` take a scalar function"),
  RecursiveSynchronisation: def("CS1027", "error", "A recursive device function cannot synchronise"),
  UfuncSignature: def("CS1026", "error", "A ufunc needs scalar parameters and a result type that is not ambiguous"),

  // CS2xxx — types and values
  KernelReturnsValue: def("CS2001", "error", "A kernel cannot return a value"),
  NonIntegerIndex: def("CS2002", "error", "Array index is not an integer"),
  WrongDType: def("CS2003", "error", "Wrong dtype"),
  UnsupportedParameterType: def("CS2004", "error", "Unsupported parameter type"),
  MissingParameterType: def("CS2005", "error", "Parameter needs a type annotation"),
  WrongArgumentCount: def("CS2006", "error", "Wrong number of arguments"),
  NotAnArray: def("CS2007", "error", "Value is not an array"),
  WrongIndexCount: def("CS2008", "error", "Wrong number of indices for the array's rank"),
  ConstantOverflow: def("CS2009", "error", "Integer overflow in a constant expression"),
  NotConstant: def("CS2010", "error", "Expected a compile-time constant"),
  InvalidAssignmentTarget: def("CS2011", "error", "Invalid assignment target"),
  TypeMismatch: def("CS2012", "error", "Type mismatch"),
  MissingReturn: def("CS2013", "error", "Device function does not return a value on every path"),
  InvalidKernelOption: def("CS2014", "error", "Invalid kernel option"),
  WriteToConstMemory: def("CS2015", "error", "Constant memory is read-only in kernels"),
  DivisionByZero: def("CS2016", "error", "Integer division by zero in a constant expression"),
  Int64Unsupported: def("CS2017", "error", "64-bit integers are not supported"),
  Int64Mixing: def("CS2018", "error", "bigint (i64/u64) mixed with number without a conversion"),
  Int64Operation: def("CS2019", "error", "Operation not available on 64-bit integers"),
  F16Mixed: def("CS2020", "error", "f16 mixed with another type in one operation"),
  F16AtomicUnsupported: def("CS2021", "error", "CUDA has no f16 form of this atomic"),
  ComplexOperator: def("CS2022", "error", "Operators do not apply to complex numbers: use cuda.complex functions"),
  ComplexMixing: def("CS2023", "error", "Complex and other number types are not mixed without a conversion"),
  ComplexPartWrite: def("CS2024", "error", "A complex element is read and written whole"),
  ConstArrayElementRange: def("CS2025", "error", "A constant array element does not fit its dtype"),
  RandomStatesArgument: def("CS2027", "error", "cuda.random draws need a state array (Xoroshiro128pStates)"),
  RandomStateIndex: def("CS2028", "error", "The index of a cuda.random draw must be an integer"),
  // Array views (docs/kernel-language.md#views)
  InvalidArrayView: def("CS2029", "error", "Invalid array view"),
  InvalidArrayVariable: def("CS2030", "error", "Unsupported use of an array variable"),
  UnsupportedThrow: def("CS2045", "error", "A kernel throws `new Error(message)` with a string or template message"),
  ReduceSignature: def("CS2031", "error", "`cuda.reduce` combines two values of one type into one of that type"),

  // CS3xxx — memory and resources
  LocalArraySizeNotConstant: def("CS3001", "error", "Local array size must be a compile-time constant"),
  SharedArrayShapeNotConstant: def("CS3002", "error", "Shared array shape must be a compile-time constant"),
  SharedMemoryTooLarge: def("CS3003", "error", "Static shared memory per block exceeds 48 KiB"),
  InvalidArrayShape: def("CS3004", "error", "Array shape must be positive integers"),
  ArrayDeclarationPlacement: def("CS3005", "error", "Array declarations must be `const` bindings"),
  LocalArrayTooLarge: def("CS3006", "warning", "Large per-thread local array"),
  ConstArrayInvalid: def("CS3007", "error", "`cuda.const.arrayLike` needs a module constant typed array"),
  GufuncLayout: def("CS3008", "error", "`cuda.guvectorize` needs a layout string literal such as \"(n),(n)->()\""),
  GufuncSignature: def("CS3009", "error", "A gufunc's function parameters must match its layout"),

  // CS4xxx — launch configuration
  BlockTooLarge: def("CS4001", "error", "Block has more than 1024 threads"),
  LaunchDimNotPositive: def("CS4002", "error", "Grid and block sizes must be positive"),
  LaunchDimTooLarge: def("CS4003", "error", "Grid or block dimension above the CUDA limit"),
  LaunchArgumentCount: def("CS4004", "error", "Wrong number of kernel arguments at launch"),
  LaunchArgumentKind: def("CS4005", "error", "Kernel argument of the wrong kind at launch"),
  DynamicSharedWithoutSize: def("CS4006", "warning", "Kernel uses dynamic shared memory but the launch gives none"),
  BlockOverLaunchBounds: def("CS4007", "error", "Block has more threads than the kernel's launchBounds"),
  FeatureNeedsNewerArch: def("CS4008", "error", "Kernel uses a feature the target GPU architecture lacks"),
  KernelCalledWithoutLaunch: def("CS4009", "error", "Kernel called without a launch configuration"),

  // CS2040–CS2044 — records (docs/kernel-language.md#records)
  RecordTypeInvalid: def("CS2040", "error", "Invalid record type"),
  RecordUnsupported: def("CS2041", "error", "Record use not supported"),
  RecordUnknownField: def("CS2042", "error", "Unknown record field"),
  RecordDtypeMismatch: def("CS2043", "error", "Record dtype differs from the kernel's type"),
  RecordAsValue: def("CS2044", "error", "Record used as a value"),
  // CS2046–CS2049 — records, second part
  RecordArgument: def("CS2046", "error", "A record parameter gets no record of its type"),
  RecordLaunchMismatch: def("CS2047", "error", "Launch passes records whose fields differ from the kernel's record type"),

  // CS5xxx — warnings and hints
  DivergentBarrier: def("CS5001", "warning", "`syncthreads` may not be reached by every thread of the block"),
  F64InF32Kernel: def("CS5002", "hint", "f64 arithmetic in an f32 kernel"),
  UnreachableCode: def("CS5003", "warning", "Unreachable code"),
  ImplicitFloatToInt: def("CS5004", "warning", "Float value stored into an integer"),
  UnguardedIndex: def("CS5005", "warning", "Index may run past the end of the array"),
  GridIndexOverflow: def("CS5006", "warning", "32-bit grid index overflows for this launch"),
  DivergentGridSync: def("CS5007", "warning", "`g.sync()` may not be reached by every thread of the grid"),

  // CS9xxx — the compiler itself
  InternalError: def("CS9001", "error", "Internal compiler error"),
  NvrtcRejected: def("CS9002", "error", "NVRTC rejected the generated code"),
  NvrtcCrashed: def("CS9003", "error", "NVRTC crashed compiling the generated code"),
} as const;

export type DiagnosticKey = keyof typeof Codes;

export const ALL_CODES: readonly DiagnosticDefinition[] = Object.values(Codes);

export function definitionOf(code: string): DiagnosticDefinition | undefined {
  return ALL_CODES.find((d) => d.code === code);
}

/** Where each code's documentation lives; the language server turns this into `codeDescription.href`. */
export const DIAGNOSTICS_DOC_PATH = "docs/diagnostics.md";
export function docAnchor(code: string): string {
  return code.toLowerCase();
}
