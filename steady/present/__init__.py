"""Presentation, at the end of the line: what a person reads or looks at.

- :mod:`.sheet`: key/value sheets, exact numbers with their decimals, ``--json`` output;
- :mod:`.show`: one period of a schedule as a table, its Gantt chart;
- :mod:`.horizon`: the finite-horizon ratio against K (``steady simulate --plot``);
- :mod:`.plots`: figures (matplotlib, the optional ``plot`` extra, imported on use).

Presentation imports what it shows (numbers, files, the simulation for the horizon
figure); only the command line and the campaigns import presentation.
"""

#: The package's modules (imported on use: importing the package imports none).
__all__ = ["horizon", "plots", "sheet", "show"]
