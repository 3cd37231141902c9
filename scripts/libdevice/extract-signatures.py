#!/usr/bin/env python3
"""Reads numba-cuda's numba_cuda/numba/cuda/libdevicefuncs.py (a local copy, path as the argument) and
writes numba-signatures.json beside this script: for each libdevice function Numba exposes, its C
return type and its arguments (name, type, whether a pointer output). Only the interface facts are kept
(names and types of NVIDIA's libdevice API as Numba types them); gen-table.mjs builds the table from it.

    python3 scripts/libdevice/extract-signatures.py /path/to/libdevicefuncs.py
"""
import ast
import json
import pathlib
import sys

TYPES = {"float32": "f32", "float64": "f64", "int16": "i16", "int32": "i32", "int64": "i64", "void": "void"}


def main(path: str) -> None:
    tree = ast.parse(pathlib.Path(path).read_text())
    table = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "functions":
            table = node.value
    if not isinstance(table, ast.Dict):
        sys.exit("no `functions = {...}` dict found")
    out = []
    for key, value in zip(table.keys, table.values):
        name = key.value
        ret, args = value.elts
        entry = {"name": name, "returns": TYPES[ret.id], "args": []}
        for call in args.elts:
            kw = {k.arg: k.value for k in call.keywords}
            entry["args"].append({
                "name": kw["name"].value,
                "type": TYPES[kw["ty"].id],
                "pointer": kw["is_ptr"].value,
            })
        out.append(entry)
    dest = pathlib.Path(__file__).with_name("numba-signatures.json")
    dest.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(out)} functions -> {dest}")


if __name__ == "__main__":
    main(sys.argv[1])
