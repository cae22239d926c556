"""Build the Cython core.

Compiler directives are set once, here. ``FOURCARDS_DEBUG_CYTHON=1`` rebuilds
with bounds checking, wraparound and initialisation checks turned back on.
"""

import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("FOURCARDS_DEBUG_CYTHON", "") not in ("", "0")

directives = {
    "language_level": "3",
    "embedsignature": True,
    "binding": True,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
}

if sys.platform == "win32":
    compile_args = ["/O2"]
else:
    compile_args = ["-O3"]
    if DEBUG:
        compile_args = ["-O0", "-g"]

# ``FOURCARDS_SANITIZE=1``: AddressSanitizer and UBSan, at -O1 (see tools/asan.sh).
link_args = []
if os.environ.get("FOURCARDS_SANITIZE", "") not in ("", "0"):
    compile_args = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
                    "-fno-sanitize-recover=undefined"]
    link_args = ["-fsanitize=address,undefined"]

# One extension per game, beside its twin and its switch (``_kernels.py``), and one
# for what they share (``_native``: the RNG test vectors and the call floor).
# The shared inline helpers are in ``fourcards/_common.pxd`` and ``_bits.h``.
MODULES = {
    "fourcards._native": "src/fourcards/_native.pyx",
    "fourcards.gangoffour._core": "src/fourcards/gangoffour/_core.pyx",
    "fourcards.gangoffour._vector": "src/fourcards/gangoffour/_vector.pyx",
    "fourcards.fourcolor._core": "src/fourcards/fourcolor/_core.pyx",
    "fourcards.zangle._core": "src/fourcards/zangle/_core.pyx",
}

extensions = [
    Extension(
        name,
        [source],
        include_dirs=["src/fourcards", numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )
    for name, source in MODULES.items()
]

# Regenerate the C code whenever the build mode changes (Cython itself only
# looks at file times, so a debug build could silently reuse release C code).
STAMP = os.path.join("build", "cython-mode")
mode = "debug" if DEBUG else "release"
previous = None
if os.path.exists(STAMP):
    with open(STAMP) as old:
        previous = old.read()
os.makedirs("build", exist_ok=True)
with open(STAMP, "w") as stamp:
    stamp.write(mode)

setup(ext_modules=cythonize(extensions, compiler_directives=directives, include_path=["src"],
                            force=previous != mode))
