/**
 * Records in the generated CUDA C++ (docs/kernel-language.md#records): one struct per record type, its
 * members in the interface's order, each the field dtype's array-element C type, so the C++ layout is
 * the C struct layout numpy's align=True describes (dtypes/records.ts). Compile-time assertions hold the
 * compiler to that: the struct's size, alignment and every member's offset, so a layout that differs
 * (a member type whose C++ alignment is not numpy's) fails to compile instead of reading wrong bytes.
 * They are C++03 static assertions (an array type whose size is -1 when the check fails), because
 * NVRTC compiles the generated code in its default dialect, which has neither `static_assert` nor
 * `offsetof`; the member offset is the classic `&((T*)0)->m`, a constant NVRTC and g++ both fold.
 * Record arrays arrive as their bytes (docs/abi.md); a field access casts the pointer to the struct.
 */
import { DTYPES } from "../dtypes/table";
import type { RecordType } from "../ir/types";

/** The struct's C++ name (prefixed: a record named like a C++ type or a helper stays distinct). */
export function recordStructName(r: RecordType): string {
  return `cs_rec_${r.name}`;
}

/** A field's member name (prefixed: a field named `int` or `class` is still a C++ identifier). */
export function recordMemberName(field: string): string {
  return `f_${field}`;
}

/**
 * A complex field's member type. numpy aligns a complex field as its part (a c64 may sit at offset 4),
 * but the prelude's cs_c64 is `__align__(8)` like float2: the member is this struct of the two parts,
 * aligned as a float, which converts to and from cs_c64 where the generated code reads or stores it.
 */
export const COMPLEX_FIELD_TYPES = ["c64", "c128"].map((d) => {
  const T = `cs_${d}`, F = d === "c64" ? "float" : "double";
  return `struct ${T}_field {
  ${F} re, im;
  __device__ operator ${T}() const { ${T} z; z.re = re; z.im = im; return z; }
  __device__ ${T}_field& operator=(const ${T}& z) { re = z.re; im = z.im; return *this; }
};`;
});

/** Whether a record has complex fields (their member types and the complex prelude come first). */
export function hasComplexFields(r: RecordType): boolean {
  return r.layout.fields.some((f) => DTYPES[f.dtype].kind === "complex");
}

/** The struct definition and its layout checks. */
export function recordStructLines(r: RecordType): string[] {
  const s = recordStructName(r);
  const lines = [`struct ${s} {`];
  for (const f of r.layout.fields) lines.push(`  ${DTYPES[f.dtype].kind === "complex" ? `cs_${f.dtype}_field` : DTYPES[f.dtype].elementCType} ${recordMemberName(f.name)};`);
  lines.push(`};`);
  lines.push(`/* static_assert: record ${r.name} has numpy's align=True layout (size, alignment, field offsets). */`);
  lines.push(`typedef char ${s}_size_is_${r.layout.size}[sizeof(${s}) == ${r.layout.size} ? 1 : -1];`);
  lines.push(`typedef char ${s}_align_is_${r.layout.align}[__alignof__(${s}) == ${r.layout.align} ? 1 : -1];`);
  for (const f of r.layout.fields)
    lines.push(`typedef char ${s}_${f.name}_at_${f.offset}[(unsigned long long)&(((${s}*)0)->${recordMemberName(f.name)}) == ${f.offset} ? 1 : -1];`);
  return lines;
}
