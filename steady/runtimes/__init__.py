"""Runtimes at the end of the pipeline, beside :mod:`steady.run`: programs that other
systems execute, written from steady's schedules.

Each runtime has an *exporter*, which imports schedule documents only (never the
constructions that build them), and an independent *checker*, which imports no
exporter (as :mod:`steady.verify` imports no constructor).  ``tests/test_layering.py``
keeps both rules.

- :mod:`steady.runtimes.msccl`: the MSCCL algorithm XML run by the MSCCL executor inside
  NCCL (msccl-executor-nccl) and RCCL.
"""

#: The package's modules (imported on use: importing the package imports none).
__all__ = ["msccl"]
