"""``check``'s output: plain text for a terminal, or JUnit XML for a CI system (one test case
per stream and rule judged, a failure for each finding at or above the threshold, one test
case per budget)."""

from __future__ import annotations

from collections.abc import Iterable
from xml.etree import ElementTree as ET

from .verdict import FileCheck, StreamCheck


def text(results: Iterable[FileCheck], fail_on: str) -> str:
    out: list[str] = []
    for result in results:
        if result.error is not None:
            out.append(f"{result.name}: cannot be read: {result.error}")
            continue
        out.append(f"{result.name}: {'passed' if result.passed else 'FAILED'}")
        for stream in result.streams:
            out.append(f"  stream {stream.index + 1}: {'ok' if stream.passed else 'failed'}")
            for finding in stream.findings:
                mark = "x" if finding in stream.failing else "-"
                where = f"line {finding['line']}" if finding["line"] is not None else "stream"
                out.append(
                    f"    {mark} {finding['severity']} {finding['rule']} ({where}): "
                    f"{finding['message']}"
                )
            out += [f"    {'x' if k.held is False else '-'} {k.describe()}" for k in stream.budgets]
            out += [
                f"    {'x' if j in stream.failing_judges else '-'} judge {j['client']} "
                f"{j.get('version') or ''} ({j.get('api') or ''}): {j['verdict']}"
                + (f": {j['field']}" if j.get("field") else "")
                + (f": {j['error']}" if j.get("error") else "")
                for j in stream.judges
            ]
    out.append(f"(failing at: {fail_on} and above)")
    return "\n".join(out) + "\n"


def junit(results: Iterable[FileCheck], fail_on: str) -> bytes:
    suites = ET.Element("testsuites", name="streamscope check")
    for result in results:
        suite = ET.SubElement(suites, "testsuite", name=result.name)
        cases = 0
        failures = errors = skipped = 0
        if result.error is not None:
            case = ET.SubElement(suite, "testcase", classname=result.name, name="read")
            ET.SubElement(case, "error", message=result.error)
            cases, errors = 1, 1
        for stream in result.streams:
            n, f, s = _stream_cases(suite, result.name, stream, fail_on)
            cases, failures, skipped = cases + n, failures + f, skipped + s
        suite.set("tests", str(cases))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        suite.set("skipped", str(skipped))
    ET.indent(suites)
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"


def _stream_cases(
    suite: ET.Element, name: str, stream: StreamCheck, fail_on: str
) -> tuple[int, int, int]:
    classname = f"{name}.stream{stream.index + 1}"
    by_rule: dict[str, list[dict]] = {}
    for finding in stream.findings:
        by_rule.setdefault(finding["rule"], []).append(finding)
    cases = failures = skipped = 0
    for rule in stream.judged:
        case = ET.SubElement(suite, "testcase", classname=classname, name=rule)
        cases += 1
        found = by_rule.get(rule, [])
        failing = [f for f in found if f in stream.failing]
        for finding in failing:
            failure = ET.SubElement(
                case, "failure", message=finding["message"], type=finding["severity"]
            )
            failure.text = _where(finding)
        if failing:
            failures += 1
        elif found:
            out = ET.SubElement(case, "system-out")
            out.text = "\n".join(f"{f['severity']}: {f['message']}" for f in found)
    for rule, why in stream.unjudged.items():
        case = ET.SubElement(suite, "testcase", classname=classname, name=rule)
        ET.SubElement(case, "skipped", message=why)
        cases, skipped = cases + 1, skipped + 1
    for verdict in stream.judges:
        name = f"judge {verdict['client']} {verdict.get('api') or ''}".strip()
        case = ET.SubElement(suite, "testcase", classname=classname, name=name)
        cases += 1
        said = f"{verdict['verdict']} ({verdict.get('version') or 'no version'})"
        if verdict in stream.failing_judges:
            detail = verdict.get("error") or verdict.get("field") or ""
            ET.SubElement(case, "failure", message=f"{said}: {detail}", type=verdict["verdict"])
            failures += 1
        elif verdict["verdict"] in ("not installed", "timeout"):
            ET.SubElement(case, "skipped", message=said)
            skipped += 1
    for kept in stream.budgets:
        case = ET.SubElement(
            suite, "testcase", classname=classname, name=f"budget {kept.budget.name}"
        )
        cases += 1
        if kept.held is None:
            ET.SubElement(case, "skipped", message=kept.describe())
            skipped += 1
        elif not kept.held:
            ET.SubElement(case, "failure", message=kept.describe(), type="budget")
            failures += 1
    return cases, failures, skipped


def _where(finding: dict) -> str:
    parts = [f"rule {finding['rule']} ({finding['severity']})", finding["doc"]]
    if finding["line"] is not None:
        parts.append(f"line {finding['line']}, byte {finding['byte']}")
    if finding["t"] is not None:
        parts.append(f"at {finding['t']:g} ms")
    return "; ".join(parts)
