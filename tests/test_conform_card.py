"""The report card's text (app/conform/card.py): one row per case whatever the case's ``why``
holds, its columns wide enough for its rule ids."""

from __future__ import annotations

from app.conform.card import WHY_CHARACTERS, text
from app.conform.judge import CaseReport
from app.conform.runner import Battery, Options
from app.live.apis import api_named

# LiteLLM's 400 for a parameter its provider does not take runs over lines (docs/conform.md).
LITELLM_400 = (
    "HTTP 400: litellm.UnsupportedParamsError: openai does not support parameters: "
    "['reasoning_effort'], for model=quirk-clean. To drop these, set `litellm.drop_params=True` "
    "or for proxy:\n\n`litellm_settings:\n drop_params: true`\n. \n If you want to use these "
    "params dynamically send allowed_openai_params=['reasoning_effort'] in your request." * 2
)


def card(*reports: CaseReport) -> list[str]:
    options = Options(base_url="http://127.0.0.1:9/v1", api=api_named("chat"), model="m")
    return text(options, Battery(list(reports), True, None, 1000.0)).splitlines()


def finding(rule: str) -> dict[str, str]:
    return {"rule": rule, "severity": "warning", "message": rule}


def test_a_why_over_several_lines_stays_on_its_row_and_is_cut():
    lines = card(
        CaseReport("reasoning", "", "unsupported", LITELLM_400),
        CaseReport("plain", "", "pass", "9 text chunks"),
    )
    rows = [line for line in lines if line.startswith(("reasoning ", "plain "))]
    assert len(rows) == 2 and lines.index(rows[1]) == lines.index(rows[0]) + 1
    why = rows[0].split("  ")[-1]
    assert why.startswith("HTTP 400: litellm.UnsupportedParamsError") and why.endswith("…")
    assert "To drop these, set `litellm.drop_params=True` or for proxy: `litellm_setting" in why
    assert len(rows[0]) < 100 + WHY_CHARACTERS


def test_the_rules_column_is_as_wide_as_its_longest_entry():
    lines = card(
        CaseReport("n2", "", "fail", "choice 1 finished 0 times", [finding("role-missing")] * 2),
        CaseReport(
            "n2", "", "fail", "x", [finding("role-missing"), finding("finish-reason-missing")]
        ),
    )
    header = next(line for line in lines if line.startswith("case "))
    rows = [line for line in lines if line.startswith("n2 ")]
    column = header.index("judges")
    assert all(row[column - 1] == " " and row[column] == "-" for row in rows), [header, *rows]
    assert "role-missing, finish-reason-missing" in rows[1]
    assert "role-missing, role-missing" not in rows[0]
