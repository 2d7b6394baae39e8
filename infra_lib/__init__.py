"""infra_lib: the one small library behind every number in the course.

Modules by concept: units, hardware (the spec registry), models (shapes, FLOPs, KV bytes),
inference (prefill, decode, batching), roofline, interconnect, measurements (real-GPU data),
figures (every figure; the only package that imports matplotlib), widgets, i18n. Chapters
import what they need; the library never imports a chapter.
"""
__version__ = "0.1.0"
