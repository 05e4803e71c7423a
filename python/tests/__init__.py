"""The package's tests. Run from python/ with
``python3 -m unittest discover -s tests -t .``: they import mmapbloom from
src/ (a clone), or, with MMAPBLOOM_TEST_INSTALLED=1, the mmapbloom that
the interpreter has installed (tests/test_install.py runs them so)."""

import os
import sys

if not os.environ.get("MMAPBLOOM_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))
