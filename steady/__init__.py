"""steady: optimal steady-state broadcast on heterogeneous platforms (one-port model)."""

from .errors import InputError
from .platform import Link, Platform, default_platform

__all__ = ["InputError", "Link", "Platform", "default_platform"]
__version__ = "0.1.0"
