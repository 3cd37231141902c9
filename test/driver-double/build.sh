#!/bin/sh
# Builds the TEST DOUBLE of the CUDA driver library (libcuda.so.1) from libcuda.c — NOT the NVIDIA
# driver; see README.md. Tests call this at test time; no binary is committed.
#
#   test/driver-double/build.sh <outdir> [extra compiler flags...]
#
# prints the path of <outdir>/libcuda.so.1. With cuda.h available ($CUDA_PATH, $CUDA_HOME or
# /usr/local/cuda) every function is compiled against the real prototypes, so an ABI mismatch
# between the double and NVIDIA's header is a build error. Extra flags, e.g.
# -DCUDASCRIPT_DOUBLE_OLD_DRIVER (export only pre-CUDA-12.8 / pre-CUDA-11 symbol names).
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 <outdir> [compiler flags...]" >&2
  exit 2
fi
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-gcc}
cuda_flags=""
for root in "${CUDA_PATH:-}" "${CUDA_HOME:-}" /usr/local/cuda; do
  if [ -n "$root" ] && [ -f "$root/include/cuda.h" ]; then
    cuda_flags="-DCUDASCRIPT_DOUBLE_WITH_CUDA_H -I$root/include"
    break
  fi
done
mkdir -p "$out"
tmp="$out/.libcuda.so.1.$$"
# shellcheck disable=SC2086 # word splitting of $cuda_flags is intended
"$cc" -shared -fPIC -O1 -g -std=gnu11 -Wall -Wextra -fvisibility=hidden $cuda_flags "$@" \
  -Wl,-soname,libcuda.so.1 -o "$tmp" "$here/libcuda.c" -lpthread
mv -f "$tmp" "$out/libcuda.so.1"
echo "$out/libcuda.so.1"
