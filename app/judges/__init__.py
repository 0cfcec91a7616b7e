"""Client judges (docs/judges.md): the mainstream clients themselves read a stream's captured
bytes, each in a child process with a time, memory and output cap, and say what they got.

``registry`` names every judge and the dialects it speaks; ``runner`` runs one and turns what
it said into a verdict (app/domain/judging.py); ``child`` is the Python judges' process, one
module per client (``openai_python``, ``anthropic_python``, ``langchain_openai``); the Vercel AI
SDK's judges are ``node/judge.mjs``; ``install`` sets them all up.
"""
