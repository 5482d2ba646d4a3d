# SPDX-License-Identifier: MIT
"""Where libchainsim is: CHAINSIM_LIB, else the build/ of the checkout this package
sits in, else the library `meson install` put beside it (_installed.py)."""

import os

_here = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("CHAINSIM_LIB")
    if env:
        return [("CHAINSIM_LIB", env)]
    out = [("the checkout's build/", os.path.join(_here, "..", "..", "build", "sim", "libchainsim.so"))]
    try:
        from chainsim import _installed
        out.append(("the installed library", _installed.LIBRARY))
    except ImportError:
        pass
    return out


def find():
    tried = []
    for what, path in _candidates():
        if os.path.isfile(path):
            return os.path.realpath(path)
        tried.append(f"{what} ({os.path.normpath(path)})")
    raise ImportError("chainsim: libchainsim not found; tried " + ", ".join(tried) +
                      ". Build it (meson setup build && ninja -C build) or set CHAINSIM_LIB=PATH.")
