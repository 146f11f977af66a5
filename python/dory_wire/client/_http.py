"""What the synchronous and the asyncio client share about httpx."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Union

import httpx

from .. import __version__
from .._core import DEFAULT_LIVENESS_TIMEOUT_SECONDS
from ._protocol import RequestSpec

__all__ = [
    "DEFAULT_TIMEOUT",
    "Timeout",
    "base_url_of",
    "build",
    "default_headers",
    "is_transport_error",
    "liveness_of",
    "timeout_of",
]

Timeout = Union[float, httpx.Timeout, None]
"""A timeout for the client's requests: seconds for every phase, an
``httpx.Timeout``, or ``None`` for no timeout."""

DEFAULT_TIMEOUT = httpx.Timeout(30.0)
"""Connect, write, pool and (for JSON answers) read timeout."""

ENV_URL = "DORY_URL"


def base_url_of(base_url: str | None) -> str:
    """The API's base URL: the argument, else ``$DORY_URL``."""
    url = base_url if base_url is not None else os.environ.get(ENV_URL)
    if not url:
        raise ValueError(f"no base URL: pass base_url= or set the {ENV_URL} environment variable")
    return url.rstrip("/")


def default_headers(headers: Mapping[str, str] | None) -> dict[str, str]:
    """The headers sent with every request (``headers`` wins)."""
    return {"User-Agent": f"dory-wire/{__version__}", **(headers or {})}


def timeout_of(timeout: Timeout) -> httpx.Timeout:
    """The client's timeouts as an ``httpx.Timeout``."""
    return timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)


def liveness_of(liveness_timeout_seconds: float | None) -> float:
    """The liveness timeout a reader gets (the core's default when ``None``)."""
    if liveness_timeout_seconds is None:
        return DEFAULT_LIVENESS_TIMEOUT_SECONDS
    return liveness_timeout_seconds


def build(
    http: httpx.Client | httpx.AsyncClient,
    base_url: str,
    spec: RequestSpec,
    timeout: httpx.Timeout,
    liveness_timeout_seconds: float | None = None,
) -> httpx.Request:
    """The httpx request of ``spec``.

    An output stream's socket reads time out after the liveness timeout: the
    reader then decides whether the stream stalled. A synchronous exec has no
    read timeout (it answers when the process exits).
    """
    if spec.wait == "stream":
        read: float | None = liveness_of(liveness_timeout_seconds)
    elif spec.wait == "unbounded":
        read = None
    else:
        read = timeout.read
    return http.build_request(
        spec.method,
        base_url + spec.path,
        params=dict(spec.params),
        headers=dict(spec.headers),
        json=spec.json,
        timeout=httpx.Timeout(
            connect=timeout.connect, read=read, write=timeout.write, pool=timeout.pool
        ),
    )


def is_transport_error(error: BaseException) -> bool:
    """Whether ``error`` is the connection failing (worth a reconnect), not a
    mistake such as an unsupported URL scheme."""
    return isinstance(error, httpx.TransportError) and not isinstance(
        error, httpx.UnsupportedProtocol
    )
