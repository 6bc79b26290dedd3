"""steady.schedule_file: the steady-schedule v1 format, read and written exactly.

Round trips (dict, JSON text, file), exact numbers in every accepted spelling, integers
beyond 2^53 kept exact, unknown top-level keys kept, and every unreadable document
rejected with an InputError naming the file, the element and the reason.
"""

import copy
import dataclasses
import json
import os
from decimal import Decimal
from fractions import Fraction

import pytest

from steady import InputError, default_platform
from steady.fileio import loads_json
from steady.schedule_file import (MAX_JSON_INT, PriceCertificate, Schedule, Step, Transfer,
                                  TreeEntry)

F = Fraction


def figure1_schedule(k: int = 1) -> Schedule:
    """002 Figure 1, two trees of weight k, period 2k (checked by hand in test_verify)."""
    t0 = TreeEntry(k, (("Ps", "P1"), ("P1", "P2"), ("P1", "P3"), ("P2", "P4")))
    t1 = TreeEntry(k, (("Ps", "P2"), ("P2", "P1"), ("P1", "P3"), ("P2", "P4")))
    step0 = Step(F(k), (Transfer("Ps", "P1", 0, k), Transfer("P1", "P2", 0, k),
                        Transfer("P2", "P4", 0, k), Transfer("P2", "P4", 1, k)))
    step1 = Step(F(k), (Transfer("Ps", "P2", 1, k), Transfer("P2", "P1", 1, k),
                        Transfer("P1", "P3", 0, k), Transfer("P1", "P3", 1, k)))
    return Schedule(default_platform(), F(1), F(2 * k), 2 * k, (t0, t1), (step0, step1),
                    certificate=PriceCertificate({"Ps": F(1)}, {}))


@pytest.fixture
def doc():
    return figure1_schedule().to_dict()


def parse(document, origin="s.json"):
    return Schedule.from_dict(document, origin)


def error_of(document) -> InputError:
    with pytest.raises(InputError) as err:
        parse(document)
    assert err.value.origin == "s.json"
    assert str(err.value).startswith(f"s.json: {err.value.element}: ")
    assert "\n" not in str(err.value)
    return err.value


# -- round trips ----------------------------------------------------------------------

def test_document_shape(doc):
    assert doc["format"] == "steady-schedule" and doc["version"] == 1
    assert doc["throughput"] == "1" and doc["period"] == "2"
    assert doc["messages_per_period"] == 2
    assert doc["platform"]["format"] == "steady-platform"
    assert doc["trees"][0] == {"weight": 1, "edges": [["Ps", "P1"], ["P1", "P2"],
                                                      ["P1", "P3"], ["P2", "P4"]]}
    assert doc["steps"][0]["duration"] == "1"
    assert doc["steps"][0]["transfers"][0] == {"from": "Ps", "to": "P1", "tree": 0,
                                               "messages": 1}
    assert doc["certificate"] == {"out_prices": {"Ps": "1"}, "in_prices": {}}


def test_dict_round_trip(doc):
    s = parse(doc)
    assert s == figure1_schedule()
    assert s.to_dict() == doc
    assert s.platform.name == "figure-1"


def test_json_and_file_round_trip(tmp_path):
    s = figure1_schedule()
    text = s.to_json()
    assert text.endswith("\n") and json.loads(text) == s.to_dict()
    path = tmp_path / "figure1.schedule.json"
    s.write(path)
    assert path.read_text() == text
    assert Schedule.from_file(path) == s
    assert [p.name for p in tmp_path.iterdir()] == ["figure1.schedule.json"]  # no temp left


def test_write_replaces_atomically(tmp_path):
    path = tmp_path / "s.json"
    path.write_text("old")
    os.chmod(path, 0o640)
    figure1_schedule().write(path)
    assert Schedule.from_file(path) == figure1_schedule()
    assert path.stat().st_mode & 0o777 == 0o640


def test_big_integers_are_written_as_strings_and_read_back_exactly(tmp_path):
    k = 5 * 10**39
    s = figure1_schedule(k)
    doc = s.to_dict()
    assert doc["period"] == str(10**40) and doc["throughput"] == "1"
    assert doc["messages_per_period"] == str(2 * k)
    assert doc["trees"][0]["weight"] == str(k)
    assert doc["steps"][0]["transfers"][0]["messages"] == str(k)
    path = tmp_path / "big.json"
    s.write(path)
    loaded = Schedule.from_file(path)
    assert loaded == s and loaded.messages_per_period == 2 * k
    assert os.path.getsize(path) < 5000    # polynomial: 41 digits, not 10^40 anything


@pytest.mark.parametrize("k", [1, 7, 2**53 + 1, 3**2000, 10**1500 + 17])
def test_json_text_is_the_encoding_of_the_document(k):
    """to_json encodes the transfers directly (speed); it must be the same text as
    the general encoder applied to to_dict, big counts included (FLINT's int text
    above 2000 bits)."""
    from steady.numbers import many_digits
    from steady.schedule_file import _dumps

    s = figure1_schedule(k)
    with many_digits():
        assert s.to_json() == _dumps(s.to_dict()) + "\n"
        assert str(k) in s.to_json()
    assert Schedule.from_dict(json.loads(s.to_json())) == s


def test_the_2_to_the_53_boundary():
    s = figure1_schedule()
    edge = dataclasses.replace(s, messages_per_period=MAX_JSON_INT)
    assert edge.to_dict()["messages_per_period"] == MAX_JSON_INT
    beyond = dataclasses.replace(s, messages_per_period=MAX_JSON_INT + 1)
    assert beyond.to_dict()["messages_per_period"] == str(MAX_JSON_INT + 1)
    assert parse(beyond.to_dict()).messages_per_period == MAX_JSON_INT + 1


def test_exact_numbers_in_every_spelling(doc):
    doc["throughput"] = 1
    doc["period"] = "2.0"
    doc["steps"][0]["duration"] = Decimal("1.0")        # a JSON float, as fileio reads it
    doc["steps"][1]["duration"] = "2/2"
    doc["messages_per_period"] = "2"
    doc["trees"][0]["weight"] = "1"                     # text: ASCII digits, no spaces
    doc["steps"][0]["transfers"][0]["messages"] = "1"
    s = parse(doc)
    assert s == figure1_schedule()
    assert s.period == 2 and isinstance(s.period, Fraction)
    assert isinstance(s.messages_per_period, int)


def test_decimal_text_is_exact():
    text = figure1_schedule().to_json().replace('"period": "2"', '"period": 0.1')
    s = Schedule.from_dict(loads_json(text, "s.json"), "s.json")
    assert s.period == F(1, 10)


def test_unknown_top_level_keys_are_kept(doc):
    doc["phases"] = {"warmup": 3, "ratio": Decimal("0.1000000000000000000001")}
    doc["statistics"] = [1, "x", None, True]
    s = parse(doc)
    assert dict(s.extra) == {"phases": doc["phases"], "statistics": doc["statistics"]}
    again = Schedule.from_dict(loads_json(s.to_json(), "t"), "t")
    assert again == s
    assert again.extra["phases"]["ratio"] == Decimal("0.1000000000000000000001")
    assert '"ratio": 0.1000000000000000000001' in s.to_json()


def test_certificate_is_optional_and_parsed(doc):
    del doc["certificate"]
    assert parse(doc).certificate is None
    assert "certificate" not in parse(doc).to_dict()
    doc["certificate"] = {"out_prices": {"Ps": "1/2"}, "in_prices": {"P1": 0.25}}
    cert = parse(doc).certificate
    assert cert.out_prices == {"Ps": F(1, 2)} and cert.in_prices == {"P1": F(1, 4)}


def test_certificate_of_a_throughput_result_is_accepted(doc):
    """A ThroughputResult certificate's to_dict() (with min_tree_cost, scale, min_flow)
    can be embedded as is; the extra claims are kept for the round trip."""
    doc["certificate"] = {"out_prices": {"Ps": "1"}, "in_prices": {},
                          "min_tree_cost": "1", "scale": 2, "min_flow": "1"}
    s = parse(doc)
    assert s.certificate.min_tree_cost == 1 and s.certificate.scale == 2
    assert s.to_dict()["certificate"] == doc["certificate"]


def test_a_certificate_given_in_extra_is_parsed():
    s = figure1_schedule()
    t = dataclasses.replace(s, certificate=None,
                            extra={"certificate": {"out_prices": {"Ps": "1"}}})
    assert t == s and "certificate" not in t.extra


def test_objects_are_immutable():
    s = figure1_schedule()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.period = F(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.steps[0].transfers[0].messages = 5
    with pytest.raises(TypeError):
        s.extra["x"] = 1
    with pytest.raises(TypeError):
        s.certificate.out_prices["Ps"] = 0
    assert hash(s) == hash(figure1_schedule())


def test_lists_become_tuples_and_tree_helpers():
    tree = TreeEntry(3, [["Ps", "P1"], ["P1", "P2"]])
    assert tree.edges == (("Ps", "P1"), ("P1", "P2"))
    assert tree.parent == {"P1": "Ps", "P2": "P1"}
    assert TreeEntry.from_parent({"P1": "Ps", "P2": "P1"}, 3) == tree
    step = Step(2, [Transfer("Ps", "P1", 0, 1)])
    assert step.duration == F(2) and isinstance(step.transfers, tuple)
    assert figure1_schedule().transfer_count == 8


def test_period_ten_to_the_forty_is_a_short_file():
    text = figure1_schedule(5 * 10**39).to_json()
    assert len(text) < 5000 and "10000000000000000000000000000000000000000" in text


# -- bad documents: InputError naming file, element, reason ---------------------------

def mutate(doc, path, value):
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


DELETE = object()

BAD = [
    (("format",), "steady-platform", "format", "expected 'steady-schedule'"),
    (("format",), DELETE, "format", "missing"),
    (("version",), 3, "version", "unsupported version 3"),
    (("version",), DELETE, "version", "missing"),
    (("version",), True, "version", "unsupported"),
    (("steps",), DELETE, "steps", "missing"),
    (("platform",), DELETE, "platform", "missing"),
    (("messages_per_period",), DELETE, "messages_per_period", "missing"),
    (("throughput",), "fast", "throughput", "not a number"),
    (("period",), "1/0", "period", "zero denominator"),
    (("period",), None, "period", "not a number"),
    (("messages_per_period",), "2.5", "messages_per_period", "must be an integer"),
    (("messages_per_period",), 2.0, "messages_per_period", "must be an integer"),
    (("messages_per_period",), True, "messages_per_period", "must be an integer"),
    (("trees",), {}, "trees", "must be a list"),
    (("trees", 0), [], "trees[0]", "a tree is a JSON object"),
    (("trees", 1, "weight"), "1/2", "trees[1].weight", "must be an integer"),
    (("trees", 1, "weight"), DELETE, "trees[1].weight", "missing"),
    (("trees", 1, "rate"), 1, "trees[1].rate", "unknown key"),
    (("trees", 0, "edges"), "Ps->P1", "trees[0].edges", "must be a list"),
    (("trees", 0, "edges", 2), ["P1"], "trees[0].edges[2]", "pair [parent, child]"),
    (("trees", 0, "edges", 2), ["P1", 3], "trees[0].edges[2][1]", "non-empty string"),
    (("steps",), "x", "steps", "must be a list"),
    (("steps", 1), None, "steps[1]", "a step is a JSON object"),
    (("steps", 1, "duration"), DELETE, "steps[1].duration", "missing"),
    (("steps", 1, "duration"), "soon", "steps[1].duration", "not a number"),
    (("steps", 1, "duration"), "1e-99999", "steps[1].duration", "exponent"),
    (("steps", 1, "matching"), 3, "steps[1].matching", "unknown key"),
    (("steps", 1, "transfers"), DELETE, "steps[1].transfers", "missing"),
    (("steps", 1, "transfers", 3), [], "steps[1].transfers[3]", "a transfer is a JSON object"),
    (("steps", 1, "transfers", 3, "messages"), "many", "steps[1].transfers[3].messages",
     "must be an integer"),
    (("steps", 1, "transfers", 3, "messages"), 1.5, "steps[1].transfers[3].messages",
     "must be an integer"),
    (("steps", 1, "transfers", 3, "messages"), DELETE, "steps[1].transfers[3].messages",
     "missing"),
    (("steps", 1, "transfers", 3, "tree"), "first", "steps[1].transfers[3].tree",
     "must be an integer"),
    (("steps", 1, "transfers", 3, "from"), 7, "steps[1].transfers[3].from",
     "non-empty string"),
    (("steps", 1, "transfers", 3, "to"), "", "steps[1].transfers[3].to", "non-empty string"),
    (("steps", 1, "transfers", 3, "size"), 1, "steps[1].transfers[3].size", "unknown key"),
    (("certificate",), [], "certificate", "a certificate is a JSON object"),
    (("certificate", "dual"), {}, "certificate.dual", "unknown key"),
    (("certificate", "out_prices"), ["Ps"], "certificate.out_prices", "must be an object"),
    (("certificate", "out_prices", "Ps"), "cheap", "certificate.out_prices['Ps']",
     "not a number"),
    (("certificate", "scale"), "1/2", "certificate.scale", "must be an integer"),
    (("platform", "links", 0, "cost"), "-1", "platform.links[0] (Ps->P1).cost", "must be > 0"),
    (("platform", "source"), "Px", "platform.source", "unknown source"),
    (("platform", "speed"), 1, "platform.key 'speed'", "unknown key"),
    (("platform",), "figure1.json", "platform.document", "JSON object"),
]


@pytest.mark.parametrize("path,value,element,reason", BAD,
                         ids=[f"{e}:{r}" for _, _, e, r in BAD])
def test_bad_documents_name_the_element(doc, path, value, element, reason):
    err = error_of(mutate(doc, path, value))
    assert err.element == element
    assert reason in err.reason


def test_not_an_object():
    assert error_of([1, 2]).element == "document"


def test_bad_files(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(InputError) as err:
        Schedule.from_file(missing)
    assert (err.value.origin, err.value.element) == (str(missing), "file")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "steady-schedule",\n "version": 1,,}')
    with pytest.raises(InputError) as err:
        Schedule.from_file(broken)
    assert err.value.element == "line 2 column 15" and "malformed JSON" in err.value.reason
    bad = tmp_path / "bad.json"
    doc = figure1_schedule().to_dict()
    doc["steps"][1]["transfers"][0]["messages"] = "1.5"
    bad.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        Schedule.from_file(bad)
    assert str(err.value).startswith(f"{bad}: steps[1].transfers[0].messages: ")


def test_semantic_errors_are_left_to_verify(doc):
    """Representable but wrong values (0 messages, a negative duration, a tree index out
    of range, a node not in the platform) load: steady.verify reports them."""
    doc["steps"][0]["transfers"][0].update(messages=0, tree=9, to="Nowhere")
    doc["steps"][0]["duration"] = "-1"
    s = parse(doc)
    assert s.steps[0].transfers[0] == Transfer("Ps", "Nowhere", 9, 0)
    assert s.steps[0].duration == -1
