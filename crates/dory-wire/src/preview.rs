//! The preview bounder (see `docs/PREVIEW.md`).
