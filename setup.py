"""Build the Cython core.

Compiler directives are set once, here. ``FOURCARDS_DEBUG_CYTHON=1`` rebuilds
with bounds checking, wraparound and initialisation checks turned back on (and
debug info); ``FOURCARDS_SANITIZE=1`` builds for AddressSanitizer and UBSan
(see tools/asan.sh).

A release build carries no debug info (``-g0``: Python's own CFLAGS add
``-g``, which made the extensions five times their size), cythonizes and
compiles the modules in parallel (``FOURCARDS_BUILD_JOBS``, default: every
core), and keeps each built module in ``build/ext-cache/`` under a hash of
everything that went into it (its ``.pyx``, every ``.pxd`` and header of the
package, this file, the compiler and its flags, Python's, Cython's and numpy's
versions), so a second ``pip install .`` from the same clone -- with another
extra, say -- copies the modules instead of compiling them again.
``FOURCARDS_BUILD_CACHE=0`` turns the cache off.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


DEBUG = _flag("FOURCARDS_DEBUG_CYTHON")
SANITIZE = _flag("FOURCARDS_SANITIZE")
JOBS = max(1, int(os.environ.get("FOURCARDS_BUILD_JOBS", "0") or 0) or os.cpu_count() or 1)
CACHE = os.environ.get("FOURCARDS_BUILD_CACHE", "1") not in ("", "0")
HERE = Path(__file__).resolve().parent
SOURCES = HERE / "src" / "fourcards"

directives = {
    "language_level": "3",
    "embedsignature": True,
    "binding": True,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    # Safe without the GIL: the tables are filled once at import and only read after, every
    # match's state and RNG is its own, and tests/test_threads.py (threads hammering one game,
    # one bot and the batch kernels) passes on a free-threaded Python (docs/releasing.md).
    "freethreading_compatible": True,
}

link_args: list[str] = []
if sys.platform == "win32":
    compile_args = ["/O2"]  # MSVC writes no debug info unless asked (/Zi)
elif SANITIZE:
    compile_args = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
                    "-fno-sanitize-recover=undefined"]
    link_args = ["-fsanitize=address,undefined"]
elif DEBUG:
    compile_args = ["-O0", "-g"]
else:
    compile_args = ["-O3", "-g0"]  # -g0 after Python's -g: no debug info in the release build

# One extension per concern of a game, beside its twin and its switch
# (``_kernels.py``), and one for what the games share (``_native``: the RNG test
# vectors and the call floor).  A game's modules cimport each other's ``.pxd``
# and one shared header (``gangoffour/_gof.pxd``, ``fourcolor/_fc.pxd``); what
# every game shares is in ``fourcards/_common.pxd`` and ``_bits.h``.
MODULES = {
    # Cython's utility code (memoryviews, argument parsing, ...) compiled once,
    # shared by the modules below (it was compiled again into each of them: a
    # third of the C code and half the compile time).
    "fourcards._cyutility": "src/fourcards/_cyutility.c",
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


SHARED_UTILITY = "fourcards._cyutility"


def _compiler_identity() -> str:
    """The C compiler and flags the build will use (part of every cache key)."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    try:
        version = subprocess.run([*cc.split(), "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        version = "unknown"
    flags = " ".join(os.environ.get(name, "") for name in ("CFLAGS", "CPPFLAGS", "LDFLAGS", "ARCHFLAGS"))
    return f"{cc}\n{version}\n{flags}"


def _shared_inputs() -> bytes:
    """What every module's build reads besides its own .pyx: the package's
    declarations and headers, this file, the tools' versions and the flags."""
    import Cython
    import numpy

    digest = hashlib.sha256()
    for path in sorted(SOURCES.rglob("*")):
        if path.suffix in (".pxd", ".pxi", ".h"):
            digest.update(str(path.relative_to(HERE)).encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(Path(__file__).read_bytes())
    for part in (sys.version, sysconfig.get_config_var("EXT_SUFFIX") or "", sysconfig.get_platform(),
                 Cython.__version__, numpy.__version__, repr(sorted(directives.items())),
                 repr(compile_args), repr(link_args), _compiler_identity()):
        digest.update(part.encode() + b"\0")
    return digest.digest()


class BuildExt(build_ext):
    """Cythonize only what must be built, in parallel, and reuse built modules
    from the content-addressed cache."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = JOBS
        include = _numpy_include()  # looked up here: reading the metadata or building the sdist needs no numpy
        for ext in self.extensions:
            if include not in ext.include_dirs:
                ext.include_dirs.append(include)

    def run(self) -> None:
        from Cython.Build import cythonize

        shared = _shared_inputs() if CACHE else b""
        self._cached: dict[str, Path] = {}
        todo = []
        for ext in self.extensions:
            key = self._key(ext, shared)
            hit = self._cache_dir() / f"{ext.name}-{key}{Path(self.get_ext_filename(ext.name)).suffix}"
            if CACHE and hit.is_file():
                self._cached[ext.name] = hit
            else:
                todo.append(ext)
                self._cached[ext.name] = hit  # where it goes once built (when caching)
        if todo:
            # Regenerate the C code whenever the build mode changes (Cython itself
            # only looks at file times, so a debug build could reuse release C code).
            stamp = Path(self.build_temp) / "cython-mode"
            mode = "sanitize" if SANITIZE else "debug" if DEBUG else "release"
            force = not stamp.is_file() or stamp.read_text() != mode
            built = cythonize(todo, compiler_directives=directives, include_path=["src"], force=force,
                              nthreads=JOBS if sys.platform != "win32" and JOBS > 1 else 0, quiet=True,
                              shared_utility_qualified_name=SHARED_UTILITY)
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(mode)
            c_sources = {c_code.name: c_code.sources for c_code in built}
            for ext in todo:  # the C sources, on setuptools' own objects
                ext.sources = c_sources[ext.name]
        self._todo = {ext.name for ext in todo}
        super().run()

    def _cache_dir(self) -> Path:
        return HERE / "build" / "ext-cache"

    def _key(self, ext: Extension, shared: bytes) -> str:
        digest = hashlib.sha256(shared)
        digest.update(ext.name.encode())
        for source in ext.sources:
            if source.endswith(".pyx"):  # the shared utility module's C is Cython's own: its version is in `shared`
                digest.update(Path(source).read_bytes())
        return digest.hexdigest()[:24]

    def build_extension(self, ext: Extension) -> None:
        target = Path(self.get_ext_fullpath(ext.name))
        cached = self._cached.get(ext.name)
        if ext.name not in self._todo and cached is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cached, target)
            print(f"{ext.name}: reused from {cached.relative_to(HERE)}")
            return
        super().build_extension(ext)
        if CACHE and cached is not None and target.is_file():
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(cached.suffix + f".{os.getpid()}.part")
            shutil.copyfile(target, partial)
            os.replace(partial, cached)


def _numpy_include() -> str:
    import numpy

    return numpy.get_include()


extensions = [
    Extension(
        name,
        [source],
        include_dirs=["src/fourcards"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )
    for name, source in MODULES.items()
]

setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt})
