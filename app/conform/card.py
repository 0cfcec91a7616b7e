"""The report card: plain text for a terminal, one JSON document (``--json``), JUnit XML
(``--junit FILE``: one test case per case). docs/conform.md documents each."""

from __future__ import annotations

from collections import Counter
from typing import Any
from xml.etree import ElementTree as ET

from ..version import __version__
from .judge import CaseReport
from .model import VERDICTS
from .runner import Battery, Options

WHY_CHARACTERS = 200  # of a row's why; the whole of it is in --json

MARK = {"pass": "pass", "warn": "WARN", "fail": "FAIL", "unsupported": "unsupported"}


def server_json(options: Options, battery: Battery, started: str) -> dict[str, Any]:
    return {
        "base_url": options.shown_url,
        "api": options.api.name,
        "model": options.model,
        "started": started,
        "duration_ms": round(battery.duration_ms, 1),
        "reached": battery.reached,
        "error": battery.error,
        "streamscope": __version__,
    }


def summary_json(battery: Battery) -> dict[str, Any]:
    counts = Counter(r.verdict for r in battery.reports)
    return {
        "cases": len(battery.reports),
        **{verdict: counts.get(verdict, 0) for verdict in VERDICTS},
        "passed": battery.reached and counts.get("fail", 0) == 0,
        "rules": sorted({f["rule"] for r in battery.reports for f in r.findings}),
    }


def document(options: Options, battery: Battery, started: str) -> dict[str, Any]:
    return {
        "server": server_json(options, battery, started),
        "cases": [r.to_json() for r in battery.reports],
        "summary": summary_json(battery),
    }


def _ms(value: Any) -> str:
    return f"{value:,.0f} ms" if isinstance(value, (int, float)) else "-"


def _judges(report: CaseReport) -> str:
    if not report.judges:
        return "-"
    counts = Counter(str(j.get("verdict")) for j in report.judges)
    return ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))


def one_line(why: str, most: int = WHY_CHARACTERS) -> str:
    """A case's ``why`` on its row: a server's message can run over lines (LiteLLM's 400s do),
    so its whitespace is folded and a long one cut (``--json`` keeps it whole)."""
    folded = " ".join(why.split())
    return folded if len(folded) <= most else folded[: most - 1] + "…"


def text(options: Options, battery: Battery) -> str:
    out = [
        f"streamscope conform: {options.shown_url} ({options.api.name}, model {options.model})",
        "",
    ]
    rules = {
        r.case: ", ".join(dict.fromkeys(f["rule"] for f in r.findings)) or "-"
        for r in battery.reports
    }
    wide = max([28, *map(len, rules.values())])
    out.append(
        f"{'case':<17} {'verdict':<12} {'TTFT':>9} {'ITL p50':>9}  {'rules':<{wide}} {'judges':<10} why"
    )
    for report in battery.reports:
        metrics = report.metrics or {}
        out.append(
            f"{report.case:<17} {MARK[report.verdict]:<12} {_ms(metrics.get('ttft_ms')):>9} "
            f"{_ms(metrics.get('itl_p50_ms')):>9}  {rules[report.case]:<{wide}} "
            f"{_judges(report):<10} {one_line(report.why)}"
        )
    summary = summary_json(battery)
    out += [
        "",
        f"{summary['cases']} case{'' if summary['cases'] == 1 else 's'}: "
        f"{summary['pass']} pass, {summary['warn']} warn, "
        f"{summary['fail']} fail, {summary['unsupported']} unsupported "
        f"({battery.duration_ms / 1000:,.1f} s)",
    ]
    links = [(r.case, r.capture) for r in battery.reports if r.shared and r.capture]
    if links:
        out.append("share links:")
        out += [f"  {case:<17} {link}" for case, link in links]
    captured = [r.captures[0] for r in battery.reports if r.captures]
    if captured:
        folder = captured[0].rsplit("/", 1)[0]
        out.append(f"captures in {folder} (streamscope inspect FILE)")
    return "\n".join(out) + "\n"


def junit(options: Options, battery: Battery) -> bytes:
    suites = ET.Element("testsuites", name="streamscope conform")
    suite = ET.SubElement(suites, "testsuite", name=f"{options.shown_url} ({options.api.name})")
    classname = f"conform.{options.api.name}"
    failures = skipped = 0
    for report in battery.reports:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=classname,
            name=report.case,
            time=f"{report.duration_ms / 1000:.3f}",
        )
        if report.verdict == "fail":
            failure = ET.SubElement(case, "failure", message=report.why, type="fail")
            failure.text = _details(report)
            failures += 1
        elif report.verdict == "unsupported":
            ET.SubElement(case, "skipped", message=report.why)
            skipped += 1
        else:
            said = ET.SubElement(case, "system-out")
            said.text = f"{report.verdict}: {report.why}\n{_details(report)}".rstrip()
    suite.set("tests", str(len(battery.reports)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))
    suite.set("time", f"{battery.duration_ms / 1000:.3f}")
    ET.indent(suites)
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"


def _details(report: CaseReport) -> str:
    lines = [f"expects: {report.expects}"]
    lines += [f"{f['severity']} {f['rule']}: {f['message']} ({f['doc']})" for f in report.findings]
    lines += [f"judge {j.get('client')}: {j.get('verdict')}" for j in report.judges]
    lines += [f"capture: {path}" for path in report.captures]
    lines += [f"shared: {s['url']}" for s in report.shared if s.get("url")]
    return "\n".join(lines)
