"""Findings: the rules of docs/rules.md a stream breaks. The rules themselves are
app/domain/rules, one module each; this package is what they are made of and read."""
