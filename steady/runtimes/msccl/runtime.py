"""What the MSCCL executor reads and runs: its limits, step types and collectives, as
read from its source (never copied).  Data only; the exporter and the checker both use
these facts, each in its own way.

Sources (read with the search tool's ``fetch``; line numbers refer to these commits):

- NCCL: Azure/msccl-executor-nccl at c6f6b36d1a4c (2024-12-13):
  ``src/misc/msccl/msccl_parser.cc`` (P), ``src/include/msccl/msccl_parser.h`` (PH),
  ``src/include/msccl/msccl_struct.h`` (S), ``src/device/msccl_kernel.cu`` (K),
  ``src/misc/msccl/msccl_lifecycle.cc`` (L), ``src/misc/msccl/msccl_setup.cc`` (SU),
  ``makefiles/common.mk`` (MK), ``src/include/device.h`` (D);
- RCCL: ROCm/rccl at 0cbce2a7571c (2024-10-24): the same parser (one line differs: it
  records the step types used, P:576), ``msccl_struct.h`` with fixed
  MSCCL_MAX_NUM_STEPS 64 (S:16) and MSCCL_MAX_NUM_THREAD_BLOCKS 64 (S:18),
  ``device.h`` MAXCHANNELS 128 (D:65), and ``msccl_lifecycle.cc`` (environment below).

Where the two runtimes differ, the limits here are the smaller one, so that a file
within them runs on both (docs/limits.md).
"""

from __future__ import annotations

#: Steps (XML ``<step>`` elements, nops included) per threadblock: MSCCL_MAX_NUM_STEPS,
#: 64 by default in NCCL (MK:19, a build option) and fixed in RCCL (S:16); the parser
#: refuses s >= 64 (P:485-488).
MAX_STEPS = 64
#: ``cnt`` is below MSCCL_MAX_COUNT = 72 (S:19; P:577-580 refuses cnt >= 72).
MAX_COUNT = 71
#: Channels: ``chan`` indexes mscclChannels[MAXCHANNELS] (S:135), MAXCHANNELS = 32 in
#: NCCL (D:65), 128 in RCCL; the parser's test is off by one (``channelId >
#: MAXCHANNELS``, P:449), so 32 itself would pass it and index past the array.
MAX_CHANNELS = 32
#: Threadblocks with a send peer (and, separately, with a receive peer) per channel:
#: MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL (S:17; P:589-605).
MAX_PEERS_PER_CHANNEL = 32
#: Threadblocks per GPU: MSCCL_MAX_NUM_THREAD_BLOCKS, 32 x 32 = 1024 in NCCL (S:18) but
#: 64 in RCCL (its S:18); ``tb id`` is below it (P:421-424).
MAX_THREADBLOCKS = 64
#: ``depid`` is stored in an int8_t (dependentBid, S:58): at most 127.
MAX_DEPID = 127
#: ``srcoff`` / ``dstoff`` are int16_t in a transmission (S:44-45): at most 32767.
MAX_OFFSET = 2 ** 15 - 1
#: The parser's own limits (PH:20-23): a name or value of at most MAX_STRING characters
#: (a longer value overflows its buffer: P:44-49 copies without a bound), at most
#: MAX_ATTRIBUTES attributes per element (more are dropped, P:141-144), at most
#: MAX_SUBS children per element (unchecked, P:195) and MAX_NODES elements stored per
#: rank (P:169-171: the algo, every gpu, and that rank's tb and step elements; the
#: test runs before each further element is read, so at most MAX_NODES - 1 are stored).
MAX_STRING = 255
MAX_ATTRIBUTES = 16
MAX_SUBS = 1024
MAX_NODES = 4096
#: Consecutive ``re`` steps on one destination are fused into one transmission, at most
#: this many (P:556-566, P:636).
MAX_REDUCE_FUSION = 16

#: ``proto`` (P:290-302).
PROTOCOLS = ("Simple", "LL128", "LL")
#: ``coll`` (P:333-373) -> whether the executor multiplies the caller's count by the
#: number of ranks (``sizeMultiplier``, P:348, 353, 366; SU:54, SU:474: the buffer that
#: holds nchunksperloop chunks is then the output of allgather and alltoall, the input
#: of reducescatter).
COLLECTIVES = {"reduce": False, "broadcast": False, "allreduce": False,
               "reducescatter": True, "allgather": True, "send": False, "recv": False,
               "gather": False, "scatter": False, "alltoall": True, "alltoallv": False}
#: The collectives whose result ``steady verify --msccl`` checks on symbolic chunks.
SEMANTICS = ("broadcast", "allgather", "reducescatter", "allreduce")


class StepType:
    """One value of ``type``: what the executor does with it (K:250-311; the parser's
    bound checks, P:494-543 and P:610-611, cover fewer fields than the kernel uses)."""

    def __init__(self, name, sends=False, receives=False, reads=False, writes=False,
                 reduces=False, checked=()):
        self.name = name
        self.sends = sends          # sends to the threadblock's send peer
        self.receives = receives    # receives from its receive peer
        self.reads = reads          # reads src[srcoff .. srcoff + cnt)
        self.writes = writes        # writes dst[dstoff .. dstoff + cnt)
        self.reduces = reduces      # combines what it receives (or dst, for re) with src
        self.checked = checked      # the offsets the parser bounds-checks

    @property
    def local(self) -> bool:
        return not (self.sends or self.receives)


STEP_TYPES = {t.name: t for t in (
    StepType("s", sends=True, reads=True, checked=("src",)),
    StepType("r", receives=True, writes=True, checked=("dst",)),
    StepType("rcs", sends=True, receives=True, writes=True, checked=("dst",)),
    StepType("rrs", sends=True, receives=True, reads=True, reduces=True, checked=("src",)),
    StepType("rrc", receives=True, reads=True, writes=True, reduces=True),
    StepType("rrcs", sends=True, receives=True, reads=True, writes=True, reduces=True,
             checked=("src", "dst")),
    StepType("cpy", reads=True, writes=True, checked=("src", "dst")),
    StepType("re", reads=True, writes=True, reduces=True, checked=("src", "dst")),
    StepType("nop"))}

#: ``srcbuf`` / ``dstbuf`` (P:256-268): input, output, scratch.
BUFFERS = ("i", "o", "s")

#: Attributes the parser requires (P:315-389, P:399-403, P:413-416, P:472-483; the
#: executor's first pass over every file, P:721-788, reads the algo's too).
ALGO_ATTRIBUTES = ("nchunksperloop", "nchannels", "ngpus", "proto", "coll", "minBytes",
                   "maxBytes", "inplace", "outofplace")
GPU_ATTRIBUTES = ("id", "i_chunks", "o_chunks", "s_chunks")
TB_ATTRIBUTES = ("id", "recv", "send", "chan")
STEP_ATTRIBUTES = ("s", "srcoff", "srcbuf", "dstoff", "dstbuf", "cnt", "type", "depid",
                   "deps", "hasdep")

#: Data bytes of one chunk that one pass of the program moves, with NCCL's default
#: buffer sizes (K:181, K:207: chunkSize = calcBytePerStep x MSCCL_CHUNKSTEPS for
#: Simple): Simple 4 MiB / NCCL_STEPS 8 x 4 steps; LL 512 KiB / 8 / 2 (half of each line
#: is flags); LL128 4915200 / 8 x 15/16.  NCCL_BUFFSIZE, NCCL_LL_BUFFSIZE and
#: NCCL_LL128_BUFFSIZE change them.  A buffer of B bytes is run in
#: ceil(B / (nchunksperloop x slice)) passes ("loops").
SLICE_BYTES = {"Simple": 2 * 2 ** 20, "LL": 32768, "LL128": 576000}

#: How a user turns the files on (L:27, L:77-86 and L:103-169 in NCCL; RCCL's
#: msccl_lifecycle.cc:29-31, 112 with param.h:34 adding the RCCL_ prefix).
ENVIRONMENT = {"nccl": ("NCCL_MSCCL_ENABLE=1", "MSCCL_ALGO_DIR=<folder of .xml files>"),
               "rccl": ("RCCL_MSCCL_ENABLE=1", "RCCL_MSCCL_FORCE_ENABLE=1",
                        "MSCCL_ALGO_DIR=<folder of .xml files>")}

#: Sends a (peer, channel) connection holds before its receiver takes one: the
#: connection's FIFO has NCCL_STEPS = 8 steps (D:27; prims_simple.h:144 lets a sender
#: run NCCL_STEPS ahead), and one send of the executor takes MSCCL_CHUNKSTEPS = 4 of
#: them with Simple (S:24, K:332: ProtoSimple<2, 2>; the executor caps a send's data
#: at one chunk slice, K:181, K:245-249, SU:55) and one with LL and LL128.  Whatever the
#: buffer size: a send completes once its data is in the FIFO.
FIFO_SENDS = {"Simple": 2, "LL": 8, "LL128": 8}
