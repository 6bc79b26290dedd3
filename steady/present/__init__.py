"""Presentation, at the end of the line: what a person reads or looks at.

- :mod:`.show`: one period of a schedule as a table, its Gantt chart;
- :mod:`.plots`: figures (matplotlib, the optional ``plot`` extra, imported on use).
"""
