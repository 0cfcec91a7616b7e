"""The app in this process, through Flask's test client (the Flask tutorial's ``app`` and
``client`` fixtures, tests/conftest.py), shaped as the tests use a ``LiveServer``: a data
folder and a ``request``. An API test that takes a ``server`` runs here in the fast subset, and
against a real server in the integration run (tests/test_api.py)."""

from __future__ import annotations

from pathlib import Path

from app.web import create_app

HOST = "127.0.0.1:5000"  # the address it is served as (its Host check passes)


class InProcess:
    def __init__(self, data_dir: Path, **settings: object) -> None:
        self.data_dir = data_dir
        self.app = create_app({"data_dir": str(data_dir), **settings})
        self.url = f"http://{HOST}"
        self.port = 5000

    def request(
        self, method: str, path: str, body: bytes | None, headers: dict | None
    ) -> tuple[int, dict[str, str], bytes]:
        """What ``tests/test_api.py``'s ``request`` gives: the status, headers in lower case,
        and the whole body."""
        response = self.app.test_client().open(
            path, method=method, data=body, headers={"Host": HOST, **(headers or {})}, buffered=True
        )
        try:
            return (
                response.status_code,
                {k.lower(): v for k, v in response.headers.items()},
                response.get_data(),
            )
        finally:
            response.close()
