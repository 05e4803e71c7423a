"""The in-tree build backend (pyproject.toml) writes a wheel that holds the
whole package and imports on its own."""

import os
import subprocess
import sys
import zipfile

from .common import REPO, TempDirTest

sys.path.insert(0, os.path.join(REPO, "python", "_build"))
import backend  # noqa: E402


class PackagingTest(TempDirTest):
    def test_wheel(self):
        name = backend.build_wheel(self.dir)
        self.assertEqual(name, "mmapbloom-0.1.0-py3-none-any.whl")
        with zipfile.ZipFile(os.path.join(self.dir, name)) as z:
            names = set(z.namelist())
            z.extractall(os.path.join(self.dir, "site"))
            record = z.read("mmapbloom-0.1.0.dist-info/RECORD").decode()
        sources = {f"mmapbloom/{n}" for n in os.listdir(os.path.join(REPO, "python", "mmapbloom")) if n.endswith(".py")}
        self.assertLessEqual(sources, names)
        for path in names:
            self.assertIn(path + ",", record)
        out = subprocess.run([sys.executable, "-c", "import mmapbloom; print(mmapbloom.__file__)"],
                             cwd=self.dir, env=dict(os.environ, PYTHONPATH=os.path.join(self.dir, "site")),
                             capture_output=True, text=True, check=True).stdout
        self.assertTrue(out.startswith(os.path.join(self.dir, "site")), out)

    def test_sdist(self):
        name = backend.build_sdist(self.dir)
        self.assertTrue(os.path.exists(os.path.join(self.dir, name)))
