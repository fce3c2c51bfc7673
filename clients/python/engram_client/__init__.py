"""A client of engram's HTTP API, standard library only.

engram serves one JSON API (``docs/http.md`` in the engram repository) in
two places:

- on the Unix socket of the process that owns the stores (``engram
  daemon``, ``engram serve``, or an application embedding engram):
  ``<engram home>/engram.sock``, or ``DIR/engram.sock`` for a store folder
  opened with ``--store DIR``. The socket is private to its user (mode
  0600 in a 0700 folder; peers of other users are refused), needs no token,
  and every request names the stores it spans in the ``x-engram-stores``
  header: ``.`` for a ``--store`` folder, ``user`` or ``project-<hash>``
  (primary first) for an engram home;
- over TCP by ``engram serve`` (``http://127.0.0.1:7373`` by default),
  with ``Authorization: Bearer <token>`` when it listens beyond loopback.

Every answer is JSON in the shape of the CLI's ``--json`` output; an error
is ``{"error": code, "message"}`` with an HTTP status, raised here as
:class:`EngramError`. Memory ids name their store (``s:2``, ``u:2``,
``p:2``); pass them back as they came.

>>> import engram_client
>>> engram = engram_client.connect("/tmp/demo-store")    # a --store folder
>>> saved = engram.remember("Deploys freeze on Fridays", tags=["deploy"])
>>> engram.recall("deploy freeze")["hits"][0]["id"] == saved["id"]
True
"""

import http.client
import json
import os
import socket
import urllib.parse
from typing import Any, Dict, Iterable, Optional, Sequence, Union

__all__ = [
    "Client",
    "EngramError",
    "NoOwnerError",
    "ProtocolError",
    "connect",
    "SOCKET_FILE_NAME",
    "STORES_HEADER",
]

__version__ = "0.1.0"

#: Name of the owner's socket in an engram home or a store folder.
SOCKET_FILE_NAME = "engram.sock"
#: Header naming the stores a request on the socket spans.
STORES_HEADER = "x-engram-stores"
#: Header every answer on the socket carries: the owner's engram version.
VERSION_HEADER = "x-engram-version"
#: The one store of an owner of a ``--store`` folder.
SINGLE_STORE_NAME = "."
#: The default TCP address of ``engram serve``.
DEFAULT_URL = "http://127.0.0.1:7373"
#: Largest answer read (the owner's own limit for a client).
REPLY_BYTES_MAX = 256 << 20

Json = Dict[str, Any]


class EngramError(Exception):
    """The server answered with an error: ``code`` is the stable code
    (``not_found``, ``forgotten``, ``denied``, ``ambiguous_id``,
    ``bad_request``, ...), ``message`` says what to do, ``status`` is the
    HTTP status."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


class NoOwnerError(Exception):
    """Nothing answers on the socket or the address: no owner runs."""


class ProtocolError(Exception):
    """The answer is not engram's (not JSON, cut short, or, on the
    socket, without the owner's version header)."""


class _UnixConnection(http.client.HTTPConnection):
    """HTTP/1.1 over a Unix domain socket."""

    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._path)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


def _id(memory_id: Union[str, int]) -> str:
    """A memory id as a path segment (``u:2`` stays readable)."""
    return urllib.parse.quote(str(memory_id), safe=":")


def _fields(**fields: Any) -> Json:
    """The fields that were given: the server refuses unknown ones and
    takes missing optional ones as their defaults."""
    return {k: v for k, v in fields.items() if v is not None}


def _query(**params: Any) -> str:
    pairs = []
    for name, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        pairs.append((name, str(value)))
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


class Client:
    """A client of one engram owner. Build one with :func:`connect`,
    :meth:`socket`, :meth:`store`, :meth:`home` or :meth:`http`.

    Each call is one request on a fresh connection and returns the answer's
    JSON as a dict; errors raise :class:`EngramError`."""

    def __init__(
        self,
        *,
        socket_path: Optional[str] = None,
        stores: Optional[Sequence[str]] = None,
        url: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 60.0,
    ) -> None:
        if (socket_path is None) == (url is None):
            raise ValueError("give either socket_path or url")
        self.socket_path = socket_path
        self.stores = list(stores) if stores is not None else None
        self.token = token
        self.timeout = timeout
        self.owner: Optional[Json] = None
        if url is not None:
            parsed = urllib.parse.urlsplit(url)
            if parsed.scheme not in ("http", "https") or not parsed.hostname:
                raise ValueError(f"not an http(s) URL: {url!r}")
            self._scheme = parsed.scheme
            self._netloc = parsed.netloc
            self._prefix = parsed.path.rstrip("/")
        if socket_path is not None and not self.stores:
            raise ValueError(
                "name the stores the requests span (['.'] for a --store folder, "
                "['user'] or ['project-<hash>', 'user'] for an engram home)"
            )

    # -- constructors -------------------------------------------------------

    @classmethod
    def socket(cls, path: str, stores: Sequence[str], timeout: float = 60.0) -> "Client":
        """A client of the owner listening on the socket ``path``."""
        return cls(socket_path=path, stores=stores, timeout=timeout)

    @classmethod
    def store(cls, folder: str, timeout: float = 60.0) -> "Client":
        """A client of the owner of the store folder ``folder`` (what
        ``engram --store FOLDER`` opens)."""
        path = os.path.join(os.path.abspath(folder), SOCKET_FILE_NAME)
        return cls.socket(path, [SINGLE_STORE_NAME], timeout)

    @classmethod
    def home(
        cls,
        home: Optional[str] = None,
        stores: Sequence[str] = ("user",),
        timeout: float = 60.0,
    ) -> "Client":
        """A client of the owner of an engram home (``$ENGRAM_HOME``, else
        ``~/.engram``), spanning ``stores`` (primary first): ``user``, or a
        project store's folder name ``project-<hash>`` as listed in the
        home."""
        home = home or os.environ.get("ENGRAM_HOME") or os.path.expanduser("~/.engram")
        return cls.socket(os.path.join(home, SOCKET_FILE_NAME), stores, timeout)

    @classmethod
    def http(cls, url: str = DEFAULT_URL, token: Optional[str] = None, timeout: float = 60.0) -> "Client":
        """A client of ``engram serve`` at ``url``; ``token`` (default
        ``$ENGRAM_TOKEN``) when it listens beyond loopback."""
        return cls(url=url, token=token or os.environ.get("ENGRAM_TOKEN") or None, timeout=timeout)

    # -- one request --------------------------------------------------------

    def request(self, method: str, path: str, body: Optional[Json] = None) -> Json:
        """Sends one request (``path`` under the server root, such as
        ``/api/stats``) and returns the answer's JSON; raises
        :class:`EngramError` for an error answer."""
        headers = {"Connection": "close", "Accept": "application/json"}
        data = b""
        if body is not None or method != "GET":
            data = json.dumps(body if body is not None else {}, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.socket_path is not None:
            conn: http.client.HTTPConnection = _UnixConnection(self.socket_path, self.timeout)
            headers[STORES_HEADER] = ",".join(self.stores or [])
            where = self.socket_path
            target = path
        else:
            connection = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            conn = connection(self._netloc, timeout=self.timeout)
            where = f"{self._scheme}://{self._netloc}"
            target = self._prefix + path
            if self.token:
                headers["Authorization"] = f"Bearer {self.token}"
        try:
            try:
                conn.request(method, target, body=data if data else None, headers=headers)
                response = conn.getresponse()
                raw = response.read(REPLY_BYTES_MAX + 1)
            except (FileNotFoundError, ConnectionRefusedError) as e:
                hint = (
                    "start one: `engram daemon --detach` (`engram --store DIR daemon --detach` for a store folder) or `engram serve`"
                    if self.socket_path is not None
                    else "is `engram serve` running there?"
                )
                raise NoOwnerError(f"no engram owner answers on {where} ({e.strerror}): {hint}") from e
            except http.client.HTTPException as e:
                raise ProtocolError(f"{where} did not answer as engram: {e!r}") from e
        finally:
            conn.close()
        if len(raw) > REPLY_BYTES_MAX:
            raise ProtocolError(f"the answer from {where} is over {REPLY_BYTES_MAX} bytes")
        if self.socket_path is not None:
            version = response.getheader(VERSION_HEADER)
            if version is None:
                raise ProtocolError(f"{where} did not answer as an engram owner (no {VERSION_HEADER} header)")
            self.owner = {
                "version": version,
                "pid": response.getheader("x-engram-pid"),
                "kind": response.getheader("x-engram-owner"),
            }
        try:
            answer = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, ValueError) as e:
            raise ProtocolError(f"the answer from {where} ({response.status}) is not JSON: {e}") from e
        if response.status >= 400:
            if isinstance(answer, dict) and isinstance(answer.get("error"), str):
                raise EngramError(answer["error"], str(answer.get("message", "")), response.status)
            raise EngramError("internal", json.dumps(answer), response.status)
        if not isinstance(answer, dict):
            raise ProtocolError(f"the answer from {where} is not a JSON object")
        return answer

    # -- the API ------------------------------------------------------------

    def health(self) -> Json:
        """``{"ok", "name", "version"}``; on the socket also ``root``."""
        return self.request("GET", "/api/health")

    def stats(self) -> Json:
        return self.request("GET", "/api/stats")

    def remember(
        self,
        content: str,
        *,
        room: Optional[str] = None,
        tags: Optional[Iterable[str]] = None,
        summary: Optional[str] = None,
        session: Optional[str] = None,
        session_only: Optional[bool] = None,
        tier: Optional[str] = None,
        by: Optional[str] = None,
        ttl: Optional[str] = None,
    ) -> Json:
        """Saves ``content`` as a memory. The receipt: ``{"id",
        "coordinate", "outcome" (new, reinforced, contradiction,
        discarded), "related", "reason", "uniqueness", "scope", "session",
        "first_seq", "last_seq"}``."""
        return self.request(
            "POST",
            "/api/remember",
            _fields(
                content=content,
                room=room,
                tags=list(tags) if tags is not None else None,
                summary=summary,
                session=session,
                session_only=session_only,
                tier=tier,
                by=by,
                ttl=ttl,
            ),
        )

    def remember_batch(
        self,
        items: Iterable[Json],
        *,
        session: Optional[str] = None,
        room: Optional[str] = None,
        by: Optional[str] = None,
    ) -> Json:
        """Saves ``items`` (``{"content", "room"?, "tags"?, "summary"?}``)
        in one atomic append: ``{"results": [...]}``, one per item with its
        ``index``."""
        return self.request(
            "POST",
            "/api/remember/batch",
            _fields(items=list(items), session=session, room=room, by=by),
        )

    def recall(
        self,
        query: str,
        *,
        room: Optional[str] = None,
        tier: Optional[str] = None,
        tags: Optional[Iterable[str]] = None,
        session: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> Json:
        """``{"hits": [{"id", "coordinate", "score", "text", "trust",
        "status", "scope", "tier", "room", "tags", "summary", "cues"}],
        "mode", "context"}``; ``context`` is the block to hand a model."""
        return self.request(
            "POST",
            "/api/recall",
            _fields(
                query=query,
                room=room,
                tier=tier,
                tags=list(tags) if tags is not None else None,
                session=session,
                limit=limit,
            ),
        )

    def memories(
        self,
        *,
        room: Optional[str] = None,
        tag: Optional[str] = None,
        tier: Optional[str] = None,
        status: Optional[str] = None,
        since: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Json:
        """One page of memories, newest first: ``{"memories": [{"id",
        "scope", "status", "tier", "coordinate", "room", "tags", "summary",
        "label", "text", "verified", "source", "trust", "created"}],
        "next"}``; pass ``next`` back as ``cursor`` for the next page."""
        return self.request(
            "GET",
            "/api/memories"
            + _query(room=room, tag=tag, tier=tier, status=status, since=since, limit=limit, cursor=cursor),
        )

    def memory(self, memory_id: Union[str, int]) -> Json:
        return self.request("GET", f"/api/memories/{_id(memory_id)}")

    def update(
        self,
        memory_id: Union[str, int],
        content: str,
        *,
        reason: Optional[str] = None,
        by: Optional[str] = None,
        session: Optional[str] = None,
        summary: Optional[str] = None,
        tags: Optional[Iterable[str]] = None,
        room: Optional[str] = None,
    ) -> Json:
        """New words for a memory, as a supersession: the new memory's
        receipt plus ``supersedes`` (the old id) and ``verdict_seq``."""
        return self.request(
            "POST",
            f"/api/memories/{_id(memory_id)}/update",
            _fields(
                content=content,
                reason=reason,
                by=by,
                session=session,
                summary=summary,
                tags=list(tags) if tags is not None else None,
                room=room,
            ),
        )

    def expand(
        self, memory_id: Union[str, int], *, audit: Optional[bool] = None, session: Optional[str] = None
    ) -> Json:
        """The memory's source turns, checked: ``{"id", "events": [{"seq",
        "ts", "session", "turn", "role", "content"}], "verified",
        "status"}``."""
        return self.request("GET", f"/api/memories/{_id(memory_id)}/expand" + _query(audit=audit, session=session))

    def audit(self, memory_id: Union[str, int]) -> Json:
        return self.request("GET", f"/api/memories/{_id(memory_id)}/audit")

    def forget(
        self,
        memory_id: Union[str, int],
        *,
        reason: Optional[str] = None,
        by: Optional[str] = None,
        session: Optional[str] = None,
    ) -> Json:
        """A tombstone: ``{"id", "seq", "already"}``."""
        return self.request(
            "POST",
            f"/api/memories/{_id(memory_id)}/forget",
            _fields(reason=reason, by=by, session=session),
        )

    def confirm(
        self, memory_id: Union[str, int], quote: str, *, by: Optional[str] = None, session: Optional[str] = None
    ) -> Json:
        return self.request(
            "POST",
            f"/api/memories/{_id(memory_id)}/confirm",
            _fields(quote=quote, by=by, session=session),
        )

    def grade(self, memory_id: Union[str, int], grade: int, *, by: Optional[str] = None) -> Json:
        return self.request("POST", f"/api/memories/{_id(memory_id)}/grade", _fields(grade=grade, by=by))

    def review(self, *, at: Optional[str] = None) -> Json:
        return self.request("GET", "/api/review" + _query(at=at))

    def verdicts(self) -> Json:
        return self.request("GET", "/api/verdicts")

    def verdict(
        self,
        a: Union[str, int],
        b: Union[str, int],
        verdict: str,
        *,
        by: Optional[str] = None,
        reason: Optional[str] = None,
    ) -> Json:
        """``verdict`` is ``keep-a``, ``keep-b``, ``keep-both`` or ``shelve``."""
        return self.request("POST", "/api/verdict", _fields(a=str(a), b=str(b), verdict=verdict, by=by, reason=reason))

    def entities(self, *, category: Optional[str] = None, search: Optional[str] = None) -> Json:
        return self.request("GET", "/api/entities" + _query(category=category, search=search))

    def palace(self, room: Optional[str] = None) -> Json:
        if room is None:
            return self.request("GET", "/api/palace")
        return self.request("GET", "/api/palace/" + urllib.parse.quote(room, safe=""))

    def log(self, **filters: Any) -> Json:
        """``GET /api/log`` with its filters (``from_`` for ``from``, ``to``,
        ``kind``, ``session``, ``memory``, ``since``, ``until``, ``limit``)."""
        if "from_" in filters:
            filters["from"] = filters.pop("from_")
        return self.request("GET", "/api/log" + _query(**filters))

    def ingest(
        self,
        transcript: str,
        *,
        session: Optional[str] = None,
        skip_bad_lines: Optional[bool] = None,
        extract: Optional[bool] = None,
    ) -> Json:
        """Records a JSON-lines transcript as one session's turns (the same
        transcript twice adds nothing); ``extract`` also saves the memories
        proposed from the user's turns."""
        return self.request(
            "POST",
            "/api/ingest",
            _fields(transcript=transcript, session=session, skip_bad_lines=skip_bad_lines, extract=extract),
        )

    def verify(self) -> Json:
        return self.request("POST", "/api/verify")

    def settle(self) -> Json:
        return self.request("POST", "/api/settle")


def connect(
    target: Optional[str] = None,
    *,
    token: Optional[str] = None,
    stores: Optional[Sequence[str]] = None,
    timeout: float = 60.0,
) -> Client:
    """A client for ``target``:

    - ``http://HOST:PORT`` (or ``https://``): ``engram serve`` there;
    - a path ending in ``.sock``: the owner listening on that socket
      (``stores`` required);
    - any other path ``DIR``: the owner of that folder, on
      ``DIR/engram.sock``: a store folder (``engram --store DIR``), or
      with ``stores`` an engram home;
    - nothing: ``$ENGRAM_URL`` if set, else the engram home's owner
      (``$ENGRAM_HOME`` or ``~/.engram``) over its socket, spanning
      ``stores`` (default the user store).
    """
    target = target or os.environ.get("ENGRAM_URL") or None
    if target is None:
        return Client.home(stores=stores or ("user",), timeout=timeout)
    if target.startswith(("http://", "https://")):
        return Client.http(target, token=token, timeout=timeout)
    if target.endswith(".sock"):
        if stores is None:
            raise ValueError(f"{target}: name the stores the socket's requests span")
        return Client.socket(target, stores, timeout)
    if stores is not None:
        return Client.socket(os.path.join(os.path.abspath(target), SOCKET_FILE_NAME), stores, timeout)
    return Client.store(target, timeout=timeout)
