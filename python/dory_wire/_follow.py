"""What a :class:`Follower` decides when a response ended, as one type."""

from __future__ import annotations

from typing import Union

from ._core import Continue, Done, Reconnect

__all__ = ["Decision"]

Decision = Union[Done, Reconnect, Continue]
"""What :meth:`Follower.finish` (and :meth:`Follower.no_response`) decide:
:class:`Done`, :class:`Reconnect` or :class:`Continue`."""
