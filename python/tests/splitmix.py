"""SplitMix64: the seeded generator of the Rust tests, fuzz targets and
benchmarks (``Rng`` of crates/dory-testkit), step for step. The same seed gives the same
numbers and the same cut points in both languages, so a split that fails in
one suite can be replayed in the other. The one copy in the Python tests."""

from __future__ import annotations

_MASK = (1 << 64) - 1


class SplitMix64:
    """A deterministic 64-bit generator (no global state, no clock)."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        """The next 64 random bits."""
        self.state = (self.state + 0x9E37_79B9_7F4A_7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A number in ``range(n)`` (0 when ``n`` is 0), as the Rust ``below``:
        the high half of ``next() * n`` (Lemire's multiply-shift)."""
        return (self.next() * n) >> 64

    def cuts(self, length: int, most: int) -> list[int]:
        """Up to ``most`` sorted cut points in ``0..=length``, as the Rust ``cuts``."""
        count = self.below(most + 1)
        return sorted(self.below(length + 1) for _ in range(count))
