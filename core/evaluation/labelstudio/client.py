"""A small client for Label Studio's REST API: push a queue as tasks, pull the annotations back.

Used only when the user gives a Label Studio URL and an access token; it is the only code of
the project that opens a network connection, and only to that URL. Standard library only
(:mod:`urllib.request`).

Authentication (Label Studio 1.23)
----------------------------------
Label Studio has two kinds of access token ("API key"), shown under *Account & Settings*:

* **Personal access token** (PAT), the default since 1.23: a JWT *refresh* token, shown once
  when it is created (*Account & Settings > Personal Access Token > Create*; one per user).
  It is not sent with API calls: the client posts it to ``POST /api/token/refresh/``
  (``{"refresh": <PAT>}``), receives a short-lived *access* token (``{"access": ...}``) and
  sends ``Authorization: Bearer <access>``; when an access token expires (HTTP 401) it asks for
  a new one once and repeats the call.
* **Legacy token**: a 40-character key sent as ``Authorization: Token <key>``. Label Studio
  1.23 *disables* legacy tokens for new organizations: the server answers HTTP 401 "legacy
  token authentication has been disabled for this organization". An organization owner can
  enable them again under *Organization > Settings > Access Token Settings* (or the server can
  be started with ``--enable-legacy-api-token`` / ``LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true``
  before the organization is created).

With ``auth="auto"`` (the default) a token that reads as a JWT (three dot-separated parts whose
first decodes to a JSON header) is used as a personal access token, anything else as a legacy
token. Every failure (no server at the URL, a timeout, a refused token, a request Label Studio
rejects) is a :class:`core.errors.DataError` that says what to check.

Endpoints used: ``GET /api/current-user/whoami`` (check), ``GET/POST /api/projects/`` and
``PATCH /api/projects/<id>/`` (create or reuse a project by title), ``POST
/api/projects/<id>/import`` (tasks as a JSON list), ``GET
/api/projects/<id>/export?exportType=JSON&download_all_tasks=true`` (the JSON export that
:func:`core.evaluation.labels.imports.labels_from_labelstudio` reads).
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from core.errors import DataError
from core.userfile import parse_json

__all__ = ["LabelStudioClient", "Project", "PushResult", "looks_like_jwt"]

_LEGACY_DISABLED = "legacy token authentication has been disabled"
_TOKEN_HELP = ("create a personal access token in Label Studio under Account & Settings > "
               "Personal Access Token")


def looks_like_jwt(token: str) -> bool:
    """Whether a token reads as a JWT (a personal access token) rather than a legacy key."""
    parts = token.split(".")
    if len(parts) != 3:
        return False
    try:
        head = json.loads(base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)))
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(head, dict) and "alg" in head


#: Largest answer read from an API call, and from a project's export (a 150 MB answer ran
#: out of memory); more is refused with a message.
MAX_ANSWER_BYTES = 16 * 2**20
MAX_EXPORT_BYTES = 100 * 2**20
#: Most pages of the project list followed (100 projects a page): a server whose list never
#: ends was followed forever.
MAX_PROJECT_PAGES = 200
#: Most bytes of the project list read over all its pages (a few kB a project): pages of 9 MB
#: each kept labelstudio pull busy 109 s.
MAX_PROJECT_LIST_BYTES = 16 * 2**20


def _origin(url: str) -> tuple[str, str, int | None]:
    p = urllib.parse.urlparse(url)
    port = p.port or {"http": 80, "https": 443}.get(p.scheme)
    return p.scheme, (p.hostname or "").lower(), port


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are followed only within the server's own origin: urllib sends the request's
    headers, the token's Authorization among them, to wherever a redirect points."""

    def __init__(self, base: str) -> None:
        self.base = base

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if _origin(newurl) != _origin(self.base):
            raise DataError(f"Label Studio at {self.base} redirected to {newurl}, another "
                            "server: the token is not sent there; give that server's address "
                            "if it is the right one")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _read_limited(r: Any, limit: int, url: str, path: str) -> bytes:
    data = r.read(limit + 1)
    if len(data) > limit:
        raise DataError(f"Label Studio at {url} answered {path} with more than "
                        f"{limit / 2**20:.0f} MiB; refused")
    return data


@dataclass(frozen=True)
class Project:
    """A Label Studio project used for a round.

    Attributes
    ----------
    id : int
    title : str
    created : bool
        True when this call created it, False when an existing project was reused.
    config_updated : bool
        True when a reused project's labelling config was replaced by the given one.
    """

    id: int
    title: str
    created: bool
    config_updated: bool = False


@dataclass(frozen=True)
class PushResult:
    """What :meth:`LabelStudioClient.push_queue` did.

    Attributes
    ----------
    project : Project
    n_sent : int
        Tasks imported now.
    n_existing : int
        Tasks left out because the project already has a task with their ``sample_id``.
    """

    project: Project
    n_sent: int
    n_existing: int


class LabelStudioClient:
    """Talk to one Label Studio server with one user's access token.

    Parameters
    ----------
    url : str
        The address of the server as opened in a browser, e.g. ``http://localhost:8080``
        (a trailing slash is ignored).
    token : str
        A personal access token or a legacy token (see the module documentation).
    timeout : float, default=10.0
        Seconds to wait for each answer (exports get ``export_timeout``).
    auth : {"auto", "pat", "legacy"}, default="auto"
        How to use the token.
    export_timeout : float, default=120.0

    Raises
    ------
    DataError
        A URL that is not http(s), an empty token, an unknown ``auth``.
    """

    def __init__(self, url: str, token: str, *, timeout: float = 10.0, auth: str = "auto",
                 export_timeout: float = 120.0) -> None:
        url = (url or "").strip().rstrip("/")
        try:
            parsed = urllib.parse.urlparse(url)
            parsed.port  # noqa: B018 - raises on a port that is not a number in range
        except ValueError as exc:  # "http://[::1": Invalid IPv6 URL
            raise DataError(f"Label Studio URL {url!r} cannot be read: {exc}") from None
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise DataError(f"Label Studio URL must start with http:// or https:// and name a "
                            f"host, e.g. http://localhost:8080; got {url!r}")
        token = (token or "").strip()
        if not token:
            raise DataError(f"a Label Studio access token is needed: {_TOKEN_HELP}")
        if auth not in ("auto", "pat", "legacy"):
            raise DataError(f"auth must be 'auto', 'pat' or 'legacy', got {auth!r}")
        self.url = url
        self.timeout = float(timeout)
        self.last_answer_bytes = 0  # the size of the last answer read (the project list sums them)
        self.export_timeout = float(export_timeout)
        self._token = token
        self.auth = ("pat" if looks_like_jwt(token) else "legacy") if auth == "auto" else auth
        self._access: str | None = None

    def __repr__(self) -> str:  # never show the token
        return f"LabelStudioClient({self.url!r}, auth={self.auth!r})"

    # ------------------------------------------------------------------ transport

    def _send(self, method: str, path: str, body: Any, headers: dict[str, str],
              timeout: float) -> tuple[int, bytes]:
        """One HTTP exchange, whole within ``timeout`` seconds (a server that drips its answer
        a byte at a time kept the per-read timeout from ever firing): it runs in a worker
        thread that the caller stops waiting for at the deadline."""
        box: list[Any] = []
        worker = threading.Thread(target=lambda: box.append(self._exchange(
            method, path, body, headers, timeout)), daemon=True)
        worker.start()
        worker.join(timeout + 1.0)
        if worker.is_alive() or not box:
            raise DataError(f"Label Studio at {self.url} did not finish answering {method} "
                            f"{path} within {timeout:g} s; check the URL and that the server "
                            "is running")
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    def _exchange(self, method: str, path: str, body: Any, headers: dict[str, str],
                  timeout: float) -> tuple[int, bytes] | BaseException:
        try:
            return self._exchange_or_raise(method, path, body, headers, timeout)
        except BaseException as exc:  # handed to the caller's thread
            return exc

    def _exchange_or_raise(self, method: str, path: str, body: Any, headers: dict[str, str],
                           timeout: float) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Accept": "application/json",
                                              "Content-Type": "application/json", **headers})
        limit = MAX_EXPORT_BYTES if path.split("?")[0].endswith("/export") else MAX_ANSWER_BYTES
        opener = urllib.request.build_opener(_SameOriginRedirects(self.url))
        try:
            with opener.open(req, timeout=timeout) as r:
                return r.status, _read_limited(r, limit, self.url, path)
        except urllib.error.HTTPError as e:
            return e.code, _read_limited(e, MAX_ANSWER_BYTES, self.url, path)
        except (TimeoutError, socket.timeout):
            raise DataError(f"Label Studio at {self.url} did not answer {method} {path} within "
                            f"{timeout:g} s; check the URL and that the server is running"
                            ) from None
        except urllib.error.URLError as e:
            reason = e.reason
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise DataError(f"Label Studio at {self.url} did not answer within {timeout:g} s; "
                                "check the URL and that the server is running") from None
            if isinstance(reason, ConnectionRefusedError):
                why = "connection refused (is the server running, is the port right?)"
            elif isinstance(reason, socket.gaierror):
                why = "unknown host name"
            else:
                why = str(reason)
            raise DataError(f"cannot reach Label Studio at {self.url}: {why}") from None
        except (ConnectionError, OSError) as e:
            raise DataError(f"cannot reach Label Studio at {self.url}: {e}") from None

    @staticmethod
    def _detail(raw: bytes) -> str:
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            text = raw.decode("utf-8", "replace").strip()
            return "not a JSON answer" if text.startswith("<") else text[:300]
        if isinstance(body, dict):
            for key in ("detail", "validation_errors", "message", "error"):
                if body.get(key):
                    return json.dumps(body[key]) if not isinstance(body[key], str) \
                        else body[key]
        return json.dumps(body)[:300]

    def _refresh(self) -> str:
        status, raw = self._send("POST", "/api/token/refresh/", {"refresh": self._token}, {},
                                 self.timeout)
        if status == 200:
            try:
                access = json.loads(raw)["access"]
            except (ValueError, KeyError, TypeError):
                access = None
            if isinstance(access, str) and access:
                self._access = access
                return access
        if status == 404:
            raise DataError(f"{self.url} has no Label Studio token endpoint (/api/token/refresh/, "
                            "HTTP 404): check the URL; servers before 1.15 take only legacy "
                            "tokens (auth='legacy')")
        if status in (400, 401, 403):
            raise DataError(f"Label Studio at {self.url} refused the personal access token "
                            f"({self._detail(raw)}): it may be revoked, mistyped or from another "
                            f"server; {_TOKEN_HELP}")
        raise DataError(f"{self.url} did not give an access token (HTTP {status}: "
                        f"{self._detail(raw)}); is this a Label Studio server?")

    def _auth_header(self) -> dict[str, str]:
        if self.auth == "legacy":
            return {"Authorization": f"Token {self._token}"}
        return {"Authorization": f"Bearer {self._access or self._refresh()}"}

    def request(self, method: str, path: str, *, body: Any = None,
                params: dict[str, Any] | None = None, timeout: float | None = None) -> Any:
        """One authenticated API call; the parsed JSON answer (None when empty).

        Parameters
        ----------
        method : str
            ``"GET"``, ``"POST"``, ``"PATCH"``, ...
        path : str
            Starting with ``/api/``.
        body : JSON-serialisable, optional
        params : dict, optional
            Query parameters.
        timeout : float, optional
            Defaults to the client's ``timeout``.

        Raises
        ------
        DataError
            Unreachable server, timeout, refused token, or an answer other than 2xx (with
            Label Studio's own explanation).
        """
        if params:
            path = f"{path}?{urllib.parse.urlencode(params, doseq=True)}"
        timeout = self.timeout if timeout is None else timeout
        status, raw = self._send(method, path, body, self._auth_header(), timeout)
        if status == 401 and self.auth == "pat":  # access token expired: refresh once
            self._access = None
            status, raw = self._send(method, path, body, self._auth_header(), timeout)
        self.last_answer_bytes = len(raw)
        if status == 401:
            detail = self._detail(raw)
            if self.auth == "legacy" and _LEGACY_DISABLED in detail:
                raise DataError(
                    f"Label Studio at {self.url} refused the legacy token: {detail}. Label "
                    f"Studio 1.23 turns legacy tokens off by default; {_TOKEN_HELP} (or ask an "
                    "organization owner to enable legacy tokens under Organization > Settings "
                    "> Access Token Settings)")
            kind = "legacy token" if self.auth == "legacy" else "personal access token"
            raise DataError(f"Label Studio at {self.url} refused the {kind} ({detail}); "
                            f"{_TOKEN_HELP}")
        if status == 403:
            raise DataError(f"the Label Studio user of this token may not {method} {path} "
                            f"(HTTP 403: {self._detail(raw)})")
        if status == 404:
            raise DataError(f"no such Label Studio API at {self.url}{path} (HTTP 404): check the "
                            "URL (the server's address, without /projects/...) and the "
                            "project id")
        if not 200 <= status < 300:
            raise DataError(f"Label Studio refused {method} {path} (HTTP {status}): "
                            f"{self._detail(raw)}")
        if not raw.strip():
            return None
        try:
            return parse_json(raw, label=f"{self.url}{path}")  # nesting and key limits
        except DataError as exc:
            raise DataError(f"{exc}: is this the address of a Label Studio server?") from None

    # ------------------------------------------------------------------ API

    def check(self) -> dict[str, Any]:
        """Check the URL and the token; the token's user (``id``, ``email``, ...).

        Raises
        ------
        DataError
            The server cannot be reached within the timeout, the URL is not a Label Studio
            server, or the token is refused (the message says what to do).
        """
        user = self.request("GET", "/api/current-user/whoami")
        if not isinstance(user, dict) or "id" not in user:
            raise DataError(f"{self.url} answered /api/current-user/whoami without a user: is "
                            "this a Label Studio server?")
        return user

    def user_emails(self) -> dict[str, str]:
        """User id (as text) -> e-mail of the organisation's users (``GET /api/users``), for
        naming annotators by e-mail (the export's ``completed_by`` is a bare id); ``{}`` when
        the server refuses the list (a token without the right), so annotators stay ids."""
        from core.data.keys import label_key

        try:
            got = self.request("GET", "/api/users/")
        except DataError:
            return {}
        if isinstance(got, dict):  # a paginated answer
            got = got.get("results")
        if not isinstance(got, list):
            return {}
        return {label_key(u["id"]): str(u["email"]) for u in got
                if isinstance(u, dict) and u.get("id") not in (None, "")
                and isinstance(u.get("email"), str) and u["email"].strip()}

    def projects(self, *, title: str | None = None) -> list[dict[str, Any]]:
        """The projects this user can see (optionally those whose title contains ``title``)."""
        out: list[dict[str, Any]] = []
        read = 0
        for page in range(1, MAX_PROJECT_PAGES + 1):
            params: dict[str, Any] = {"page": page, "page_size": 100}
            if title:
                params["title"] = title
            got = self.request("GET", "/api/projects/", params=params)
            read += self.last_answer_bytes
            if read > MAX_PROJECT_LIST_BYTES:
                raise DataError(f"Label Studio at {self.url} lists more than "
                                f"{MAX_PROJECT_LIST_BYTES / 2**20:.0f} MiB of projects (page "
                                f"{page}); stopped (is this a Label Studio server? give the "
                                "project's title with --project)")
            if isinstance(got, list):  # unpaginated answer
                return [p for p in got if isinstance(p, dict)]
            results = got.get("results", []) if isinstance(got, dict) else []
            if not isinstance(results, list):
                results = []
            out.extend(p for p in results if isinstance(p, dict))
            count = got.get("count") if isinstance(got, dict) else None
            done = isinstance(count, int) and not isinstance(count, bool) and len(out) >= count
            if not results or not got.get("next") or done:
                return out
        raise DataError(f"Label Studio at {self.url} lists projects on more than "
                        f"{MAX_PROJECT_PAGES} pages; stopped (is this a Label Studio server?)")

    def find_project(self, title: str) -> dict[str, Any] | None:
        """The project with exactly this title (the oldest one if several), else None."""
        same = [p for p in self.projects(title=title) if p.get("title") == title
                and isinstance(p.get("id"), int) and not isinstance(p.get("id"), bool)]
        return min(same, key=lambda p: p["id"]) if same else None

    def ensure_project(self, title: str, label_config: str, *,
                       description: str = "") -> Project:
        """Reuse the project with this title, or create it, with this labelling config.

        Parameters
        ----------
        title : str
        label_config : str
            XML from :func:`core.evaluation.labelstudio.project.labelling_config`. A reused project
            whose config differs gets this one; a config Label Studio refuses (invalid XML or
            tags) raises with Label Studio's reason. Label Studio 1.23 accepts a config that
            drops a class already used by annotations (those labels then fail
            :func:`core.evaluation.labels.imports.join_labels` if the class left the dataset).
        description : str, optional

        Returns
        -------
        Project
        """
        title = (title or "").strip()
        if not title:
            raise DataError("a Label Studio project needs a title")
        found = self.find_project(title)
        if found is None:
            body = {"title": title, "label_config": label_config, "description": description,
                    "show_skip_button": True}
            p = self.request("POST", "/api/projects/", body=body)
            if not (isinstance(p, dict) and isinstance(p.get("id"), int)):
                raise DataError(f"{self.url} created no project (its answer has no project "
                                "id): is this a Label Studio server?")
            return Project(id=int(p["id"]), title=title, created=True)
        pid = int(found["id"])
        current = found.get("label_config")
        if current is None:
            got = self.request("GET", f"/api/projects/{pid}/")
            current = got.get("label_config") if isinstance(got, dict) else None
        if " ".join(str(current).split()) != " ".join(label_config.split()):
            self.request("PATCH", f"/api/projects/{pid}/", body={"label_config": label_config})
            return Project(id=pid, title=title, created=False, config_updated=True)
        return Project(id=pid, title=title, created=False)

    def import_tasks(self, project_id: int, tasks: list[dict[str, Any]], *,
                     chunk: int = 500) -> int:
        """Import tasks (the list from :func:`core.evaluation.labelstudio.project.tasks`).

        Returns
        -------
        int
            The number of tasks Label Studio created.
        """
        created = 0
        for start in range(0, len(tasks), chunk):
            got = self.request("POST", f"/api/projects/{int(project_id)}/import",
                               body=tasks[start:start + chunk], timeout=self.export_timeout)
            n = got.get("task_count", 0) if isinstance(got, dict) else 0
            created += n if isinstance(n, int) and not isinstance(n, bool) else 0
        return created

    def export(self, project_id: int, *, all_tasks: bool = True) -> list[dict[str, Any]]:
        """The project's JSON export: every task with its annotations (skipped ones included).

        Parameters
        ----------
        project_id : int
        all_tasks : bool, default=True
            Include tasks nobody annotated yet (so they can be reported as pending).

        Returns
        -------
        list of dict
            What :func:`core.evaluation.labels.imports.labels_from_labelstudio` reads.
        """
        got = self.request("GET", f"/api/projects/{int(project_id)}/export",
                           params={"exportType": "JSON",
                                   "download_all_tasks": "true" if all_tasks else "false"},
                           timeout=self.export_timeout)
        if not isinstance(got, list):
            raise DataError(f"Label Studio's export of project {project_id} is not a list of "
                            "tasks")
        return got

    def push_queue(self, title: str, label_config: str,
                   tasks: list[dict[str, Any]]) -> PushResult:
        """Create or reuse a project and import the tasks it does not have yet.

        A task is already there when the project has a task with the same ``data.sample_id``
        (compared as text), so pushing the same queue twice imports nothing the second time.
        """
        project = self.ensure_project(title, label_config)
        have: set[str] = set()
        if not project.created:
            for t in self.export(project.id):
                data = t.get("data") if isinstance(t, dict) else None
                sid = data.get("sample_id") if isinstance(data, dict) else None
                if sid is not None:
                    have.add(str(sid))
        new = [t for t in tasks if str(t["data"]["sample_id"]) not in have]
        n = self.import_tasks(project.id, new) if new else 0
        return PushResult(project=project, n_sent=n, n_existing=len(tasks) - len(new))
