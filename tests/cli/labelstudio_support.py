"""A Label Studio server of one user for the command-line tests (no network beyond localhost)."""

from __future__ import annotations

import json


class FakeLabelStudio:
    """A Label Studio of one user: projects by title, tasks imported, an export where every
    task has one annotation choosing ``label`` (legacy-token API)."""

    def __init__(self, label: str = "1"):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs, urlparse

        self.projects: dict[int, dict] = {}
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self):
                n = int(self.headers.get("Content-Length") or 0)
                return json.loads(self.rfile.read(n) or b"null")

            def do_GET(self):
                url = urlparse(self.path)
                if url.path == "/api/projects/":
                    title = parse_qs(url.query).get("title", [""])[0]
                    res = [p for p in fake.projects.values() if title in p["title"]]
                    return self._send(200, {"count": len(res), "next": None, "results": res})
                pid = int(url.path.split("/")[3])
                tasks = fake.projects[pid]["tasks"]
                return self._send(200, [{"id": i + 1, "data": t["data"], "annotations": [
                    {"id": i + 1, "completed_by": 1, "result": [
                        {"from_name": "label", "to_name": "text", "type": "choices",
                         "value": {"choices": [label]}}]}]}
                    for i, t in enumerate(tasks)])

            def do_POST(self):
                body = self._body()
                if self.path == "/api/projects/":
                    pid = len(fake.projects) + 1
                    fake.projects[pid] = {"id": pid, "title": body["title"], "tasks": [],
                                          "label_config": body["label_config"]}
                    return self._send(201, {"id": pid})
                pid = int(self.path.split("/")[3])
                fake.projects[pid]["tasks"].extend(body)
                return self._send(201, {"task_count": len(body)})

            do_PATCH = do_POST

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
