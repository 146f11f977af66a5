//! The byte buffers a bounder keeps: a buffer that grows to a cap, and the
//! last bytes pushed in a circular buffer. Shared by the streaming bounder,
//! the terminal renderer and the run bounder; depends on nothing else.

/// Makes room for `extra` more bytes, growing geometrically but never past `cap`.
pub(crate) fn grow_capped(buf: &mut Vec<u8>, extra: usize, cap: usize) {
    let needed = buf.len() + extra;
    if needed > buf.capacity() {
        let target = buf
            .capacity()
            .saturating_mul(2)
            .clamp(needed, cap.max(needed));
        buf.reserve_exact(target - buf.len());
    }
}

/// The last `cap` bytes pushed, in a fixed-size circular buffer.
#[derive(Debug, Clone)]
pub(crate) struct Ring {
    buf: Vec<u8>,
    cap: usize,
    /// Index of the oldest byte once `buf` is full.
    start: usize,
}

impl Ring {
    pub(crate) fn new(cap: usize) -> Self {
        Ring {
            buf: Vec::new(),
            cap,
            start: 0,
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// The most bytes it keeps.
    pub(crate) fn cap(&self) -> usize {
        self.cap
    }

    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        if chunk.len() >= self.cap {
            // Only the chunk's own last `cap` bytes survive.
            self.buf.clear();
            self.start = 0;
            grow_capped(&mut self.buf, self.cap, self.cap);
            self.buf.extend_from_slice(&chunk[chunk.len() - self.cap..]);
            return;
        }
        if self.buf.len() < self.cap {
            let take = (self.cap - self.buf.len()).min(chunk.len());
            grow_capped(&mut self.buf, take, self.cap);
            self.buf.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if chunk.is_empty() {
            return;
        }
        // Full: overwrite the oldest bytes, wrapping around once at most.
        let first = (self.cap - self.start).min(chunk.len());
        self.buf[self.start..self.start + first].copy_from_slice(&chunk[..first]);
        let rest = &chunk[first..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.start = (self.start + chunk.len()) % self.cap;
    }

    pub(crate) fn into_vec(mut self) -> Vec<u8> {
        self.buf.rotate_left(self.start);
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_the_last_bytes() {
        let data: Vec<u8> = (0..=255).collect();
        for cap in [1, 7, 16, 100] {
            for split in [1, 3, 16, 17, 50, 300] {
                let mut ring = Ring::new(cap);
                for chunk in data.chunks(split) {
                    ring.push(chunk);
                    assert!(ring.capacity() <= cap);
                }
                assert_eq!(
                    ring.into_vec(),
                    &data[data.len() - cap..],
                    "cap {cap} split {split}"
                );
            }
        }
    }
}
