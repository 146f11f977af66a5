"""What the synchronous and the asyncio client share about httpx: a core
:class:`~dory_wire.Request` as an ``httpx.Request``, which exceptions are the
connection failing, and what a transport error says.

Nothing here decides anything about the protocol: the requests are the
core's, and what a failure means is the core follower's decision."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Union

import httpx

from .. import __version__
from .._core import Request

__all__ = [
    "DEFAULT_TIMEOUT",
    "Timeout",
    "base_url_of",
    "build",
    "default_headers",
    "describe",
    "is_transport_error",
    "timeout_of",
]

Timeout = Union[float, httpx.Timeout, None]
"""A timeout for the client's requests: seconds for every phase, an
``httpx.Timeout``, or ``None`` for no timeout."""

DEFAULT_TIMEOUT = httpx.Timeout(30.0)
"""Connect, write, pool and (for JSON answers) read timeout."""

ENV_URL = "DORY_URL"
JSON = "application/json"


def base_url_of(base_url: str | None) -> str:
    """The API's base URL: the argument, else ``$DORY_URL``, as the core
    takes it (``InvalidArgument``, a ``ValueError``, when it is not an
    ``http(s)://`` URL with a host)."""
    return Request.base_url(base_url if base_url is not None else os.environ.get(ENV_URL))


def default_headers(headers: Mapping[str, str] | None) -> dict[str, str]:
    """The headers sent with every request (``headers`` wins)."""
    return {"User-Agent": f"dory-wire/{__version__}", **(headers or {})}


def timeout_of(timeout: Timeout) -> httpx.Timeout:
    """The client's timeouts as an ``httpx.Timeout``."""
    return timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)


def build(
    http: httpx.Client | httpx.AsyncClient,
    base_url: str,
    request: Request,
    *,
    timeout: httpx.Timeout,
    headers: Mapping[str, str],
    liveness_timeout_seconds: float | None = None,
) -> httpx.Request:
    """The httpx request of the core's ``request``.

    Its method, ``base_url`` + its target, its headers and then those of
    ``headers`` (the client's) that it does not set itself, its body (JSON
    bytes, sent as ``application/json``), and the timeouts its ``wait``
    asks for: ``"default"`` the client's ``timeout``; ``"stream"`` the
    same but a read timeout of ``liveness_timeout_seconds`` (the follower's:
    when a read times out, the core decides whether the stream stalled);
    ``"unbounded"`` no read timeout (a synchronous exec answers at the exit).
    """
    if request.wait == "stream":
        if liveness_timeout_seconds is None:
            raise ValueError("a stream request needs the liveness timeout as its read timeout")
        read: float | None = liveness_timeout_seconds
    elif request.wait == "unbounded":
        read = None
    else:
        read = timeout.read
    own = list(request.headers)
    if request.body is not None and request.header("content-type") is None:
        own.append(("Content-Type", JSON))
    named = {name.lower() for name, _ in own}
    own.extend((name, value) for name, value in headers.items() if name.lower() not in named)
    return http.build_request(
        request.method,
        base_url + request.target,
        headers=own,
        content=request.body,
        timeout=httpx.Timeout(
            connect=timeout.connect, read=read, write=timeout.write, pool=timeout.pool
        ),
    )


def is_transport_error(error: BaseException) -> bool:
    """Whether ``error`` is the connection failing (the follower decides what
    it means), not a mistake such as an unsupported URL scheme."""
    return isinstance(error, httpx.TransportError) and not isinstance(
        error, httpx.UnsupportedProtocol
    )


def never_connected(error: BaseException) -> bool:
    """Whether a transport error says the connection was never made: refused,
    the name lookup failed, the host was unreachable, the connect timed out
    (``httpx.ConnectError``, ``httpx.ConnectTimeout``). httpx raises these
    only while opening the connection (its TLS handshake included), before
    a byte of the request is written, so the request cannot have reached the
    service; the core then sends it again whatever it is. Anything later (a
    reset, a read timeout) is "no response"."""
    return isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))


def describe(error: BaseException, request: httpx.Request | None = None) -> str:
    """What a transport error says, for the follower's record (its
    ``detail``): the exception's message (its class when it has none),
    after the request's method and URL when ``request`` is given (no answer
    came: the address says where from)."""
    text = str(error) or type(error).__name__
    if request is None:
        return text
    return f"{request.method} {request.url}: {text}"
