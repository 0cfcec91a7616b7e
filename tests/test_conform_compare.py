"""Two conformance reports compared (app/conform/compare.py, docs/conform.md, "In the page"):
per case the verdict in each and whether it got better or worse, the rule ids found in one
and not the other, the change of TTFT and ITL p50, and the cases run in only one report."""

from __future__ import annotations

from app.conform.compare import compare


def case(name: str, verdict: str, rules=(), ttft=None, itl=None, **extra) -> dict:
    metrics = None if ttft is None and itl is None else {"ttft_ms": ttft, "itl_p50_ms": itl}
    return {
        "case": name,
        "verdict": verdict,
        "why": f"{name} {verdict}",
        "findings": [{"rule": r, "severity": "warning"} for r in rules],
        "metrics": metrics,
        "capture": f"/c/{name}",
        **extra,
    }


def report(*cases: dict) -> dict:
    return {"server": {"base_url": "http://h/v1"}, "cases": list(cases), "summary": {}}


def rows(compared: dict) -> dict[str, dict]:
    return {row["case"]: row for row in compared["cases"]}


def test_verdicts_findings_and_timings_per_case():
    a = report(
        case("plain", "pass", ttft=10.0, itl=2.0),
        case("n2", "fail", rules=["choice-index-missing"], ttft=5.0, itl=2.5),
        case("long", "warn", rules=["coalesced", "stall"], ttft=20, itl=3),
    )
    b = report(
        case("plain", "fail", rules=["finish-reason-repeated"], ttft=12.5, itl=1.0),
        case("n2", "pass", ttft=4.0, itl=None),
        case("long", "warn", rules=["stall", "keepalive-comment"], ttft=20, itl=3),
    )
    got = rows(compare(a, b))
    assert list(got) == ["plain", "n2", "long"]
    assert got["plain"]["change"] == "worse"
    assert got["plain"]["added"] == ["finish-reason-repeated"] and got["plain"]["removed"] == []
    assert got["plain"]["ttft_ms_change"] == 2.5 and got["plain"]["itl_p50_ms_change"] == -1.0
    assert got["plain"]["a"]["verdict"] == "pass" and got["plain"]["b"]["verdict"] == "fail"
    assert got["plain"]["b"]["capture"] == "/c/plain"
    assert got["n2"]["change"] == "better"
    assert got["n2"]["removed"] == ["choice-index-missing"] and got["n2"]["added"] == []
    assert got["n2"]["ttft_ms_change"] == -1.0
    assert got["n2"]["itl_p50_ms_change"] is None  # one side has no ITL: no change to say
    assert got["long"]["change"] == "same"
    assert got["long"]["added"] == ["keepalive-comment"] and got["long"]["removed"] == ["coalesced"]


def test_the_ranking_of_verdicts_pass_unsupported_warn_fail():
    pairs = [("pass", "unsupported", "worse"), ("unsupported", "warn", "worse")]
    pairs += [("fail", "warn", "better"), ("warn", "pass", "better"), ("fail", "fail", "same")]
    for before, after, change in pairs:
        got = rows(compare(report(case("c", before)), report(case("c", after))))
        assert got["c"]["change"] == change, (before, after)
    odd = rows(compare(report(case("c", "pass")), report(case("c", "exploded"))))
    assert odd["c"]["change"] == "changed"


def test_cases_in_only_one_report_and_the_summary():
    a = report(case("plain", "pass"), case("n2", "pass"))
    b = report(case("reasoning", "warn"), case("plain", "warn", rules=["stall"]))
    compared = compare(a, b)
    got = rows(compared)
    assert list(got) == ["plain", "n2", "reasoning"]  # a's order, then b's new cases
    assert got["n2"]["change"] == "only-a" and got["n2"]["b"] is None
    assert got["reasoning"]["change"] == "only-b" and got["reasoning"]["a"] is None
    assert got["reasoning"]["added"] == [] and got["reasoning"]["ttft_ms_change"] is None
    assert compared["summary"] == {
        "same": 0,
        "better": 0,
        "worse": 1,
        "changed": 0,
        "only-a": 1,
        "only-b": 1,
        "findings_changed": 1,
    }


def test_a_report_still_running_or_malformed_compares_without_failing():
    running = {"server": {}, "cases": None}
    assert compare(running, report(case("plain", "pass")))["cases"][0]["change"] == "only-b"
    odd = report({"case": 3}, {"verdict": "pass"}, "text", case("plain", "pass", ttft=True))
    got = rows(compare(odd, report(case("plain", "pass", ttft=1.0))))
    assert list(got) == ["plain"]
    assert got["plain"]["a"]["ttft_ms"] is None  # a boolean is not a time
    assert compare({}, {})["cases"] == []
