"""A HAR file with 40 planted secrets, one in every place a secret can hide in a DevTools export
(docs/security.md, "Secrets in uploads"), and variants that strict JSON refuses but the lenient
reader still reads (a lone ``"\\ud800"``, a ``NaN``).

Each canary is unique and, except where the place is the point of the test (a key in a stream
body, which only the key sweep can find), shaped so that the key sweep alone would miss it: a
canary survives unless the rule for its place removes it.
"""

from __future__ import annotations

import base64
import json
from typing import Any

# name -> canary. Plain values (no key shape) wherever a place rule must remove them.
CANARIES: dict[str, str] = {
    # request headers (in any letter case)
    "h_authorization": "Token cnryAUTHORIZATIONhdr01",
    "h_proxy_authorization": "Basic cnryPROXYAUTHhdr02",
    "h_api_key": "cnryAPIKEYhdr03",
    "h_x_api_key": "cnryXAPIKEYhdr04",
    "h_x_goog_api_key": "cnryGOOGhdr05",
    "h_cookie": "sid=cnryCOOKIEhdr06",
    "h_x_auth_token": "cnryXAUTHTOKENhdr07",
    "request_cookie": "cnryREQCOOKIEobj08",
    # the request URL
    "url_password": "cnryURLPASSWORD09",
    "url_user_token": "cnryURLUSERTOKEN10",
    "q_key": "cnryQKEY11",
    "q_api_dash_key": "cnryQAPIDASHKEY12",
    "q_x_api_key": "cnryQXAPIKEY13",
    "q_access_dash_token": "cnryQACCESSTOKEN14",
    "q_client_secret": "cnryQCLIENTSECRET15",
    "q_password": "cnryQPASSWORD16",
    "q_auth": "cnryQAUTH17",
    "q_session": "cnryQSESSION18",
    "q_upper_api_key": "cnryQUPPERAPIKEY19",
    "q_sig": "cnryQSIG20",
    "fragment_access_token": "cnryFRAGACCESSTOKEN21",
    # the request body (postData)
    "post_api_key": "cnryPOSTAPIKEY22",
    "post_apiKey": "cnryPOSTAPIKEYCAMEL23",
    "post_password": "cnryPOSTPASSWORD24",
    "post_client_secret": "cnryPOSTCLIENTSECRET25",
    "post_nested_token": "cnryPOSTNESTEDTOKEN26",
    "post_form_password": "cnryPOSTFORMPASSWORD27",
    "post_sk_in_message": "sk-cnryPOSTMESSAGEKEY28xxxxxxxx",
    "post_params_value": "cnryPOSTPARAMS29",
    # the response
    "resp_set_cookie": "refresh=cnrySETCOOKIE30; HttpOnly",
    "resp_x_api_key": "cnryRESPXAPIKEY31",
    "response_cookie": "cnryRESPCOOKIEobj32",
    "stream_sk": "sk-cnrySTREAMKEY33xxxxxxxxxxxxxxx",
    "stream_jwt": "eyJhbGciOiJIUzI1NiJ9.eyJjbnJ5IjoiMzQifQ.Y25yeVNUUkVBTUpXVDM0",
    "stream_url_key": "cnrySTREAMURLKEY35",
    "b64_sk_proj": "sk-proj-cnryBASE64PROJ36xxxxxxxxxxx",
    "b64_goog": "AIzaSycnryBASE64GOOG37xxxxxxxxxxxxxxx",
    "redirect_url_session": "cnryREDIRECTSESSION38",
    # an entry that is not a stream
    "other_authorization": "Token cnryOTHERENTRYAUTH39",
    "other_body": "cnryOTHERENTRYBODY40",
}
assert len(CANARIES) == 40

BREAKERS = ("strict", "lone-surrogate", "nan")


def _sse(*contents: str) -> str:
    chunks = [
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": c}}],
        }
        for c in contents
    ]
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"


def _headers(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in pairs]


def entries() -> list[dict[str, Any]]:
    c = CANARIES
    query = (
        f"key={c['q_key']}&api-key={c['q_api_dash_key']}&x-api-key={c['q_x_api_key']}"
        f"&access-token={c['q_access_dash_token']}&client_secret={c['q_client_secret']}"
        f"&password={c['q_password']}&auth={c['q_auth']}&session={c['q_session']}"
        f"&API_KEY={c['q_upper_api_key']}&sig={c['q_sig']}&model=gpt-x"
    )
    url = (
        f"https://{c['url_user_token']}:{c['url_password']}@api.example.com/v1/chat/completions?{query}"
        f"#access_token={c['fragment_access_token']}"
    )
    body = {
        "model": "gpt-x",
        "stream": True,
        "api_key": c["post_api_key"],
        "apiKey": c["post_apiKey"],
        "password": c["post_password"],
        "client_secret": c["post_client_secret"],
        "auth": {"token": c["post_nested_token"]},
        "messages": [{"role": "user", "content": f"my key is {c['post_sk_in_message']}"}],
    }
    stream = {
        "startedDateTime": "2026-11-29T10:00:00Z",
        "time": 120.5,
        "request": {
            "method": "POST",
            "url": url,
            "headers": _headers(
                [
                    ("Authorization", c["h_authorization"]),
                    ("proxy-authorization", c["h_proxy_authorization"]),
                    ("API-KEY", c["h_api_key"]),
                    ("X-API-KEY", c["h_x_api_key"]),
                    ("x-goog-api-key", c["h_x_goog_api_key"]),
                    ("Cookie", c["h_cookie"]),
                    ("X-Auth-Token", c["h_x_auth_token"]),
                    ("content-type", "application/json"),
                ]
            ),
            "cookies": [{"name": "sid", "value": c["request_cookie"]}],
            "postData": {"mimeType": "application/json", "text": json.dumps(body)},
        },
        "response": {
            "status": 200,
            "headers": _headers(
                [
                    ("Set-Cookie", c["resp_set_cookie"]),
                    ("x-api-key", c["resp_x_api_key"]),
                    ("content-type", "text/event-stream"),
                ]
            ),
            "cookies": [{"name": "refresh", "value": c["response_cookie"]}],
            "content": {
                "mimeType": "text/event-stream",
                "text": _sse(
                    f"key {c['stream_sk']} and {c['stream_jwt']}",
                    f" see https://api.example.com/v1?key={c['stream_url_key']}&x=1",
                ),
            },
            "redirectURL": f"https://example.com/next?session={c['redirect_url_session']}",
        },
        "timings": {"send": 1, "wait": 100, "receive": 19.5},
    }
    form = {
        "startedDateTime": "2026-11-29T10:00:01Z",
        "request": {
            "method": "POST",
            "url": "https://api.example.com/v1/chat/completions",
            "headers": [],
            "postData": {
                "mimeType": "application/x-www-form-urlencoded",
                "text": f"model=gpt-x&password={c['post_form_password']}",
                "params": [{"name": "password", "value": c["post_params_value"]}],
            },
        },
        "response": {
            "status": 200,
            "headers": [],
            "content": {
                "mimeType": "text/event-stream",
                "encoding": "base64",
                "text": base64.b64encode(
                    _sse(f"{c['b64_sk_proj']} and {c['b64_goog']}").encode()
                ).decode(),
            },
        },
    }
    other = {
        "request": {
            "method": "GET",
            "url": "https://example.com/",
            "headers": _headers([("authorization", c["other_authorization"])]),
        },
        "response": {
            "status": 200,
            "headers": [],
            "content": {
                "mimeType": "application/json",
                "text": json.dumps({"password": c["other_body"]}),
            },
        },
    }
    return [stream, other, form]


def secret_har(breaker: str = "strict") -> bytes:
    """The 40-secret HAR; ``breaker`` makes strict JSON refuse it while the lenient reader
    still reads it."""
    log: dict[str, Any] = {"version": "1.2", "creator": {"name": "test"}, "entries": entries()}
    if breaker == "lone-surrogate":
        log["creator"]["comment"] = "\ud800"
    elif breaker == "nan":
        log["entries"][0]["time"] = float("nan")
    return json.dumps({"log": log}).encode()


def survivors(blob: bytes) -> list[str]:
    """The canaries (by name) found in ``blob``, whole or by their distinctive part."""
    return [name for name, canary in CANARIES.items() if _core(canary).encode() in blob]


def _core(canary: str) -> str:
    """The part of a canary no rule leaves behind: the token after its scheme or cookie name."""
    value = canary.split(" ", 1)[-1] if canary.startswith(("Token ", "Basic ")) else canary
    return value.split("=", 1)[-1].split(";", 1)[0]
