"""core.evaluation.labelstudio.client against hostile fake servers (issue 24): bounded reads, an overall
timeout, bounded pagination, no token sent across a redirect to another origin, malformed
answers and URLs. Each server is a local ``http.server`` thread; nothing leaves the machine."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.errors import DataError
from core.evaluation.labelstudio import client as ls_client
from core.evaluation.labelstudio.client import LabelStudioClient


class Server:
    """A local HTTP server answering with ``handler(request) -> None`` (which writes the
    answer); records the requests' paths and Authorization headers."""

    def __init__(self, answer):
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _any(self):
                seen.append((self.path, self.headers.get("Authorization")))
                try:
                    answer(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PATCH = _any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def send(h, status, body, headers=()):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    h.send_response(status)
    for k, v in headers:
        h.send_header(k, v)
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)


@pytest.fixture
def serve():
    servers = []

    def start(answer):
        s = Server(answer)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def client(url, **kw):
    return LabelStudioClient(url, "legacy-token-0123456789", auth="legacy", **kw)


def test_a_slow_drip_answer_stops_at_the_overall_timeout(serve):
    def drip(h):
        h.send_response(200)
        h.send_header("Content-Length", "1000")
        h.end_headers()
        for _ in range(1000):  # one byte every 0.2 s: each read is quick, the whole is not
            h.wfile.write(b" ")
            h.wfile.flush()
            time.sleep(0.2)

    s = serve(drip)
    start = time.monotonic()
    with pytest.raises(DataError, match="did not finish answering GET /api/current-user/whoami "
                                        "within 1 s"):
        client(s.url, timeout=1.0).check()
    assert time.monotonic() - start < 5


def test_an_answer_larger_than_the_limit_is_refused(serve, monkeypatch):
    monkeypatch.setattr(ls_client, "MAX_ANSWER_BYTES", 1000)
    s = serve(lambda h: send(h, 200, b"[" + b"1," * 5000 + b"1]"))
    with pytest.raises(DataError, match="more than 0 MiB; refused"):
        client(s.url).projects()


def test_an_endless_project_list_stops(serve, monkeypatch):
    monkeypatch.setattr(ls_client, "MAX_PROJECT_PAGES", 5)
    s = serve(lambda h: send(h, 200, {"count": "many", "next": "more",
                                      "results": [{"id": 1, "title": "t"}]}))
    with pytest.raises(DataError, match="more than 5 pages"):
        client(s.url).find_project("x")
    assert len(s.seen) == 5


def test_a_project_list_of_many_bytes_stops(serve, monkeypatch):
    """Issue 32: pages of 9 MB each kept labelstudio pull busy 109 s (200 pages). The list's
    bytes are bounded over all pages: pages of 3,000 bytes against a 10,000-byte bound stop at
    the 4th page (12,000 > 10,000), before the 200-page bound."""
    monkeypatch.setattr(ls_client, "MAX_PROJECT_LIST_BYTES", 10_000)
    body = {"count": 10**9, "next": "more", "results": [{"id": 1, "title": ""}]}
    pad = 3000 - len(json.dumps(body).encode())
    body["results"][0]["title"] = "x" * pad
    assert len(json.dumps(body).encode()) == 3000
    s = serve(lambda h: send(h, 200, body))
    with pytest.raises(DataError, match="more than 0 MiB of projects \\(page 4\\)"):
        client(s.url).find_project("y")
    assert len(s.seen) == 4


def test_no_token_is_sent_across_a_redirect_to_another_origin(serve):
    other = serve(lambda h: send(h, 200, {"id": 1}))
    first = serve(lambda h: send(h, 302, b"", [("Location", other.url + "/api/current-user/"
                                                            "whoami")]))
    with pytest.raises(DataError, match="redirected to .* another server: the token is not sent"):
        client(first.url).check()
    assert other.seen == []
    # within the same origin a redirect is followed, with the token
    same = serve(lambda h: send(h, 302, b"", [("Location", "/api/current-user/whoami/")])
                 if not h.path.endswith("/") else send(h, 200, {"id": 7}))
    assert client(same.url).check()["id"] == 7
    assert [a for _, a in same.seen] == ["Token legacy-token-0123456789"] * 2


@pytest.mark.parametrize("body", [b"[" * 100_000, {"count": 1, "results": "x"},
                                  {"results": [1, None, {"id": "x", "title": "x"}]}, [[1]],
                                  b"not json", {"next": None}])
def test_malformed_answers_are_data_errors_or_nothing_found(serve, body):
    s = serve(lambda h: send(h, 200, body))
    try:
        assert client(s.url).find_project("x") is None
    except DataError:
        pass


@pytest.mark.parametrize("body", [{"id": "x"}, [1], None, {"task_count": "x"}])
def test_malformed_project_answers_on_push(serve, body):
    def answer(h):
        if h.path.startswith("/api/projects/?"):
            send(h, 200, {"count": 0, "results": []})
        else:
            send(h, 201, body if body is not None else b"")

    s = serve(answer)
    with pytest.raises(DataError, match="created no project"):
        client(s.url).push_queue("t", "<View/>", [{"data": {"sample_id": "s1"}}])


@pytest.mark.parametrize("url", ["http://[::1", "http://host:99999", "ftp://x", "localhost"])
def test_bad_urls_are_data_errors(url):
    with pytest.raises(DataError, match="URL"):
        client(url)


def test_an_export_larger_than_its_limit_is_refused(serve, monkeypatch):
    """A 150 MB export ran out of memory; exports have their own, larger limit (100 MiB)."""
    assert ls_client.MAX_EXPORT_BYTES == 100 * 2**20
    monkeypatch.setattr(ls_client, "MAX_EXPORT_BYTES", 2000)
    s = serve(lambda h: send(h, 200, [{"id": i, "data": {}, "annotations": []}
                                      for i in range(200)]))
    with pytest.raises(DataError, match="answered /api/projects/1/export.* refused"):
        client(s.url).export(1)


def test_user_emails_read_a_list_or_a_page_and_stay_empty_when_refused(serve):
    """Issue 33: the users' e-mails (GET /api/users) name annotators; an answer as a list or as
    a page of results is read, users without an e-mail are left out, a refusal gives {}."""
    users = [{"id": 1, "email": "ann@x.org"}, {"id": 2, "email": ""}, {"id": 3},
             {"id": "4", "email": "di@x.org"}, "not a user"]
    plain = serve(lambda h: send(h, 200, users))
    assert client(plain.url).user_emails() == {"1": "ann@x.org", "4": "di@x.org"}
    assert plain.seen[0][0].startswith("/api/users")
    paged = serve(lambda h: send(h, 200, {"count": 5, "results": users}))
    assert client(paged.url).user_emails() == {"1": "ann@x.org", "4": "di@x.org"}
    refused = serve(lambda h: send(h, 403, {"detail": "You do not have permission"}))
    assert client(refused.url).user_emails() == {}
