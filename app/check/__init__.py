"""``streamscope check``: findings and metric budgets as a CI gate (docs/rules.md, "check")."""
