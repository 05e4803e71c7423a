"""A fresh virtual environment of Debian's /usr/bin/python3 with its
system site-packages (where python3-xxhash lives; no package index is
reachable in CI): `pip install --no-build-isolation ./python`, and the
same with -e, then the package's tests run by the installed package; and
the same with another CPython on the machine when xxhash imports there."""

import os
import shutil
import subprocess
import sys
import unittest

from .common import REPO, TempDirTest

PYTHON_DIR = os.path.join(REPO, "python")
SRC = os.path.join(PYTHON_DIR, "src", "mmapbloom")
DEBIAN_PYTHON = "/usr/bin/python3"
# Tests that exercise the installed package end to end, a few seconds each.
INSTALLED_TESTS = ["tests.test_filter", "tests.test_golden", "tests.test_hashing", "tests.test_header"]


def _version():
    scope: dict = {}
    with open(os.path.join(SRC, "_version.py")) as f:
        exec(f.read(), scope)
    return scope["__version__"]


def _other_python():
    """Another CPython 3 on PATH than Debian's, or None."""
    for name in ("python3", "python3.13", "python3.12", "python3.11", "python3.10", "python3.9"):
        path = shutil.which(name)
        if path and os.path.realpath(path) != os.path.realpath(DEBIAN_PYTHON):
            return path
    return None


@unittest.skipIf(os.environ.get("MMAPBLOOM_TEST_INSTALLED"), "already running from an installed package")
class InstallTest(TempDirTest):
    def venv(self, python, system_site=True):
        env_dir = os.path.join(self.dir, "venv")
        args = [python, "-m", "venv"] + (["--system-site-packages"] if system_site else []) + [env_dir]
        subprocess.run(args, check=True, capture_output=True, timeout=300)
        return os.path.join(env_dir, "bin", "python")

    def pip_install(self, py, *args):
        out = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", *args],
                             capture_output=True, text=True, timeout=600)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def run_installed(self, py, editable):
        env = dict(os.environ, MMAPBLOOM_TEST_INSTALLED="1")
        env.pop("PYTHONPATH", None)
        where = subprocess.run(
            [py, "-c", "import mmapbloom, os; print(os.path.dirname(mmapbloom.__file__)); print(mmapbloom.__version__)"],
            cwd=self.dir, env=env, capture_output=True, text=True, check=True).stdout.split()
        if editable:
            self.assertEqual(os.path.realpath(where[0]), os.path.realpath(SRC))
        else:
            self.assertTrue(where[0].startswith(self.dir), where[0])
            self.assertTrue(os.path.exists(os.path.join(where[0], "py.typed")))
        self.assertEqual(where[1], _version())
        # the default layout needs xxhash: create works out of the box
        subprocess.run([py, "-c", "import mmapbloom, sys; f = mmapbloom.create(sys.argv[1], 1000, 0.01); "
                        "assert f.add('x') is False and 'x' in f", os.path.join(self.dir, f"t{int(editable)}.bloom")],
                       cwd=self.dir, env=env, check=True)
        if editable:
            return  # the same sources as the wheel: the tests ran on those
        out = subprocess.run([py, "-m", "unittest", *INSTALLED_TESTS], cwd=PYTHON_DIR, env=env,
                             capture_output=True, text=True, timeout=600)
        self.assertEqual(out.returncode, 0, out.stderr[-4000:])

    def check_install(self, python, system_site=True):
        for editable in (False, True):
            with self.subTest(editable=editable):
                py = self.venv(python, system_site)
                self.pip_install(py, *(["-e"] if editable else []), PYTHON_DIR)
                self.run_installed(py, editable)
                shutil.rmtree(os.path.join(self.dir, "venv"))

    def test_debian_python(self):
        if not os.path.exists(DEBIAN_PYTHON):
            self.skipTest(f"{DEBIAN_PYTHON} not found (Debian's python3)")
        self.check_install(DEBIAN_PYTHON)

    def test_other_cpython(self):
        other = _other_python()
        if other is None:
            self.skipTest("no CPython other than /usr/bin/python3 on PATH")
        if subprocess.run([other, "-c", "import xxhash, setuptools, venv"], capture_output=True).returncode:
            self.skipTest(f"{other}: xxhash or setuptools does not import there (pip install xxhash setuptools)")
        self.check_install(other)
