"""What to install for a missing module, for the interpreter actually
running: Debian's package for Debian's own python3 outside a virtual
environment, else pip for this interpreter."""

import os
import sys

_DEBIAN_PREFIX = "/usr"


def hint(module: str, debian_package: str) -> str:
    """Return the command that installs module for sys.executable."""
    pip = f"{sys.executable} -m pip install {module}"
    in_venv = sys.prefix != sys.base_prefix
    debian = sys.base_prefix == _DEBIAN_PREFIX and os.path.exists("/usr/lib/python3/dist-packages")
    if debian and not in_venv:
        return f"apt-get install {debian_package}"
    if debian:
        return f"{pip} (or apt-get install {debian_package}, if this venv sees the system site-packages)"
    return f"{pip} (this interpreter is {sys.executable}; Debian's {debian_package} serves /usr/bin/python3 only)"
