"""4 Python processes adding disjoint keys to one file at once lose no key
and no count (the Go test TestPythonAndGoWriters adds 2 Go processes)."""

import json
import os
import subprocess
import sys

import mmapbloom

from .common import REPO, TempDirTest, require_xxhash

WRITERS, KEYS = 4, 20_000


@require_xxhash
class ProcessesTest(TempDirTest):
    def test_four_writers(self):
        for shape in ({}, {"layout": "classic"}, {"scheme": "murmur2-double"}):
            with self.subTest(**shape):
                path = self.path()
                mmapbloom.create(path, WRITERS * KEYS, 0.01, **shape).close()
                env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python", "src"))
                script = os.path.join(REPO, "python", "tests", "interop.py")
                procs = [subprocess.Popen([sys.executable, script, "writer", path, str(w), str(KEYS)],
                                          stdout=subprocess.PIPE, env=env) for w in range(WRITERS)]
                new = 0
                for p in procs:
                    out, _ = p.communicate(timeout=300)
                    self.assertEqual(p.returncode, 0)
                    new += json.loads(out)["Counted"]
                with mmapbloom.open(path) as f:
                    self.assertEqual(len(f), new)
                    self.assertGreater(new, WRITERS * KEYS * 0.95)
                    for w in range(WRITERS):
                        self.assertTrue(all(f.test_batch([f"w{w}-{s}" for s in range(KEYS)])), f"writer {w}")
                os.unlink(path)
