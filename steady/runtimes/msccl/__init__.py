"""MSCCL algorithm files (docs/formats.md, "MSCCL algorithm XML").

- :mod:`.runtime`: what the executor's parser and kernel accept (limits, step types,
  collectives), with the source lines they were read from;
- :mod:`.ranks`: which platform node runs as which rank;
- exporter side: :mod:`.export` (a steady schedule -> one loop's transfers),
  :mod:`.loop` (their causal order within one loop), :mod:`.program` (threadblocks,
  steps, the XML text), :mod:`.sizes` (files per message-size range);
- checker side (imports no exporter): :mod:`.check` (entry point), :mod:`.check_lexer`
  (the executor's tokenizer), :mod:`.check_rules` (its structural rules),
  :mod:`.check_run` (deadlock, data races, symbolic semantics, predicted time).

This package's ``__init__`` imports nothing, so that importing the checker never loads
the exporter.
"""
