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

# One extension per concern of a game, beside its twin and its switch
# (``_kernels.py``), and one for what the games share (``_native``: the RNG test
# vectors and the call floor).  A game's modules cimport each other's ``.pxd``
# and one shared header (``gangoffour/_gof.pxd``, ``fourcolor/_fc.pxd``); what
# every game shares is in ``fourcards/_common.pxd`` and ``_bits.h``.
MODULES = {
    "fourcards._native": "src/fourcards/_native.pyx",
    "fourcards.gangoffour._combos": "src/fourcards/gangoffour/_combos.pyx",
    "fourcards.gangoffour._parse": "src/fourcards/gangoffour/_parse.pyx",
    "fourcards.gangoffour._sim": "src/fourcards/gangoffour/_sim.pyx",
    "fourcards.gangoffour._bots": "src/fourcards/gangoffour/_bots.pyx",
    "fourcards.gangoffour._search": "src/fourcards/gangoffour/_search.pyx",
    "fourcards.gangoffour._playouts": "src/fourcards/gangoffour/_playouts.pyx",
    "fourcards.gangoffour._vector": "src/fourcards/gangoffour/_vector.pyx",
    "fourcards.fourcolor._melds": "src/fourcards/fourcolor/_melds.pyx",
    "fourcards.fourcolor._parse": "src/fourcards/fourcolor/_parse.pyx",
    "fourcards.fourcolor._bots": "src/fourcards/fourcolor/_bots.pyx",
    "fourcards.fourcolor._sim": "src/fourcards/fourcolor/_sim.pyx",
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
