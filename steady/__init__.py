"""steady: optimal steady-state broadcast on heterogeneous platforms (one-port model).

The names below are loaded on first use (PEP 562), so that ``import steady`` itself is
instant: the command line's guard then covers every module it loads, and a Ctrl-C at
start-up ends with exit code 130, not a traceback (issue 18 F06)."""

import importlib

__all__ = ["InputError", "Link", "Platform", "default_platform"]
__version__ = "0.1.0"

_HOME = {"InputError": "errors", "Link": "platform", "Platform": "platform",
         "default_platform": "platform"}


def __getattr__(name):
    if name in _HOME:
        value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'steady' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
