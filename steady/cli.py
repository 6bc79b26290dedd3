"""The console entry point ``steady`` (pyproject's ``[project.scripts]``); the command
line itself is :mod:`steady.commands`."""

from .commands import build_parser, main

__all__ = ["build_parser", "main"]
