#!/usr/bin/env python3
"""Make `import torch` work from PyPI's CUDA build of torch on a machine without CUDA.

usage: cuda_stubs.py VENV

PyPI's torch 2.15 wheel for Linux links against the CUDA 13 libraries (cudart, cublas,
cudnn, ...), which are 3 GB of further wheels.  Installed with `--no-deps`, `import torch`
fails: torch/__init__.py tries to preload them from site-packages/nvidia/ and raises
"libcublasLt.so.*[0-9] not found".  This writes one small stub shared library per missing
library into VENV's site-packages/nvidia/cu13/lib/, with the right soname and version node,
defining every symbol torch's own libraries take from it.  Each stub function returns 100
(cudaErrorNoDevice), so torch sees no GPU: `torch.cuda.is_available()` is False and every CPU
op is the real one.  Needs gcc and readelf.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

# (soname, the file names torch/__init__.py's _preload_cuda_deps globs for)
LIBS = [
    "libcublasLt.so.13", "libcublas.so.13", "libcudnn.so.9", "libnvrtc.so.13",
    "libnvrtc-builtins.so.13", "libcudart.so.13", "libcupti.so.13", "libcufft.so.12",
    "libnvJitLink.so.13", "libcusparse.so.12", "libcusparseLt.so.0", "libcusolver.so.12",
    "libnccl.so.2", "libnvshmem_host.so.3", "libcufile.so.0", "libnvToolsExt.so.1",
]

# unversioned symbol prefixes and the stub that defines them
UNVERSIONED = [
    ("cusparseLt", "libcusparseLt.so.0"), ("nccl", "libnccl.so.2"), ("cuFile", "libcufile.so.0"),
    ("nvshmem", "NVSHMEM"), ("nvtx", "libnvToolsExt.so.1"), ("cu", "libcudart.so.13"),
]

STRING_RETURNING = re.compile(r"(GetErrorString|GetErrorName|GetString|ErrorString)$")


def undefined_symbols(torch_lib_dir):
    """{version node: {symbol, ...}} for every versioned symbol torch's libraries import."""
    needed = {}
    for lib in glob.glob(os.path.join(torch_lib_dir, "*.so")):
        out = subprocess.run(["readelf", "--dyn-syms", "-W", lib], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) < 8 or parts[6] != "UND":
                continue
            if "@" in parts[7]:
                sym, ver = parts[7].split("@", 1)
                needed.setdefault(ver, set()).add(sym)
            else:
                # Unversioned imports (libraries without version nodes, the driver API):
                # some are taken by address, so they must resolve when torch loads.
                for prefix, soname in UNVERSIONED:
                    if parts[7].startswith(prefix):
                        needed.setdefault(soname, set()).add(parts[7])
                        break
    return needed


def build(soname, version_node, symbols, out_dir, tmp):
    src = os.path.join(tmp, soname + ".c")
    with open(src, "w") as f:
        f.write('static const char msg[] = "CUDA stub (no CUDA on this machine)";\n')
        for s in sorted(symbols):
            if STRING_RETURNING.search(s):
                f.write(f"const char *{s}(void) {{ return msg; }}\n")
            else:
                f.write(f"long {s}(void) {{ return 100; }}\n")
    args = ["gcc", "-shared", "-fPIC", "-O0", "-o", os.path.join(out_dir, soname), src,
            f"-Wl,-soname,{soname}"]
    if version_node:
        vs = os.path.join(tmp, soname + ".map")
        with open(vs, "w") as f:
            body = "".join(f"  {s};\n" for s in sorted(symbols))
            f.write(f"{version_node} {{\n global:\n{body} local: *;\n}};\n")
        args.append(f"-Wl,--version-script,{vs}")
    subprocess.run(args, check=True)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    site = glob.glob(os.path.join(sys.argv[1], "lib", "python3*", "site-packages"))[0]
    needed = undefined_symbols(os.path.join(site, "torch", "lib"))
    out_dir = os.path.join(site, "nvidia", "cu13", "lib")
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for soname in LIBS:
            node = soname if soname in needed else None
            if soname == "libnvshmem_host.so.3":
                node = "NVSHMEM"
            syms = needed.get(node, set()) if node else set()
            build(soname, node, syms, out_dir, tmp)
            print(f"{soname}: {len(syms)} symbols")


if __name__ == "__main__":
    main()
