"""The physical network under a platform's arcs (issue 19; ours):

- :mod:`.model`: the optional ``network`` section of steady-platform v1 -- links with
  their cost and sharing policy, the route of each arc;
- :mod:`.rows`: the link rows it adds to the steady-state LPs of 002 §5.2 (one row per
  shared link), the link prices of the certificate and the arc weights they induce.

It sits between the exact toolbox and the platform: the platform parses the section
with :mod:`.model`, every LP formulation of :mod:`steady.throughput` adds :mod:`.rows`.
"""

from .model import FATPIPE, SHARED, Network, NetworkLink

__all__ = ["FATPIPE", "SHARED", "Network", "NetworkLink"]
