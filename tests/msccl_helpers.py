"""Shared by the MSCCL tests: schedules of the samples written by the command line,
their exported programs, hand-made programs of the other collectives, and XML
mutations (the faults the checker must reject)."""

from __future__ import annotations

import contextlib
import io
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from steady.cli import main
from steady.schedule_file import Schedule

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
FIXTURES = Path(__file__).resolve().parent / "data" / "msccl"
HAND_MADE = sorted(FIXTURES.glob("*.xml"))


def schedule_file(folder: Path, sample: str, *options) -> Path:
    """``steady schedule samples/SAMPLE.json OPTIONS -o FILE`` (written once)."""
    name = "-".join([sample, *[o.lstrip("-") for o in options]]) + ".json"
    path = folder / name
    if not path.exists():
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["schedule", str(SAMPLES / f"{sample}.json"), *options, "-o",
                         str(path), "--quiet"])
        assert code == 0, (sample, options)
    return path


def load(path) -> Schedule:
    return Schedule.from_file(path)


# -- XML as a tree, and back in the executor's layout ----------------------------------

def parse(data: bytes):
    return ElementTree.fromstring(data)


def dump(root) -> bytes:
    def attrs(e):
        return " ".join(f'{k}="{v}"' for k, v in e.attrib.items())
    lines = [f"<algo {attrs(root)}>"]
    for gpu in root:
        lines.append(f"  <gpu {attrs(gpu)}>")
        for tb in gpu:
            lines.append(f"    <tb {attrs(tb)}>")
            lines += [f"      <step {attrs(st)}/>" for st in tb]
            lines.append("    </tb>")
        lines.append("  </gpu>")
    lines.append("</algo>")
    return ("\n".join(lines) + "\n").encode()


def steps(root):
    """[(gpu, tb, step)] in document order."""
    return [(gpu, tb, st) for gpu in root for tb in gpu for st in tb]


def renumber(tb) -> None:
    for i, st in enumerate(tb):
        st.set("s", str(i))


# -- faults: each takes (root, k) and returns False when step k has no such fault ------

def data_step(root, k):
    found = steps(root)
    if k >= len(found) or found[k][2].get("type") == "nop":
        return None
    return found[k]


def drop_step(root, k) -> bool:
    """A step is lost (the steps after it renumbered)."""
    found = data_step(root, k)
    if found is None:
        return False
    gpu, tb, st = found
    tb.remove(st)
    renumber(tb)
    return True


def swap_offset(root, k) -> bool:
    """A step reads or writes the next chunk instead of its own."""
    found = data_step(root, k)
    if found is None:
        return False
    gpu, tb, st = found
    writes = st.get("type") in ("r", "rcs", "rrc", "rrcs", "cpy", "re")
    key, buf = ("dstoff", st.get("dstbuf")) if writes else ("srcoff", st.get("srcbuf"))
    size = int(gpu.get({"i": "i_chunks", "o": "o_chunks", "s": "s_chunks"}[buf]))
    cnt = int(st.get("cnt"))
    off = int(st.get(key))
    if off + 1 + cnt <= size:
        st.set(key, str(off + 1))
    elif off >= 1:
        st.set(key, str(off - 1))
    else:
        return False
    return True


def double_reduction(root, k) -> bool:
    """A rank's own contribution is added twice: a ``re`` of src onto itself before a
    step that reduces with it."""
    found = data_step(root, k)
    if found is None or found[2].get("type") not in ("rrs", "rrc", "rrcs"):
        return False
    gpu, tb, st = found
    extra = ElementTree.Element("step", dict(st.attrib))
    extra.attrib.update({"type": "re", "dstbuf": st.get("srcbuf"), "dstoff": st.get("srcoff"),
                         "depid": "-1", "deps": "-1", "hasdep": "0"})
    tb.insert(list(tb).index(st), extra)
    renumber(tb)
    return True


def cross_fifo(root, k) -> bool:
    """Two consecutive steps of a threadblock trade places (a send or receive queue
    crossed)."""
    found = data_step(root, k)
    if found is None:
        return False
    gpu, tb, st = found
    i = list(tb).index(st)
    if i + 1 >= len(tb) or tb[i + 1].get("type") == "nop":
        return False
    if all(tb[j].get(a) == st.get(a) for j in (i + 1,) for a in ("srcoff", "dstoff", "type")):
        return False
    nxt = tb[i + 1]
    tb.remove(nxt)
    tb.insert(i, nxt)
    renumber(tb)
    return True


def drop_dependency(root, k) -> bool:
    """A step forgets the dependency that orders it after another threadblock."""
    found = data_step(root, k)
    if found is None or found[2].get("depid") == "-1":
        return False
    found[2].attrib.update({"depid": "-1", "deps": "-1"})
    return True


def no_publication(root, k) -> bool:
    """A step others depend on no longer publishes its completion."""
    found = data_step(root, k)
    if found is None or found[2].get("hasdep") != "1":
        return False
    found[2].set("hasdep", "0")
    return True


def wrong_count(root, k) -> bool:
    """A step moves one chunk fewer (or one more) than its partner."""
    found = data_step(root, k)
    if found is None:
        return False
    st = found[2]
    cnt = int(st.get("cnt"))
    st.set("cnt", str(cnt - 1 if cnt > 1 else cnt + 1))
    return True


FAULTS = (drop_step, swap_offset, double_reduction, cross_fifo, drop_dependency,
          no_publication, wrong_count)
