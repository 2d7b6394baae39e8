"""The course's benchmark: measure your own GPU (or this CPU) the way the chapters' models count.

    python -m infra_lib.gpu_bench --out runs/my-gpu               # a CUDA GPU, through PyTorch
    python -m infra_lib.gpu_bench --out runs/cpu --backend numpy  # the same harness on this CPU
    python -m infra_lib.gpu_bench --dry-run                       # what it would measure, and for how long

PyTorch is an optional dependency (``pip install -e '.[gpu]'``); without a CUDA device the torch
backend refuses to start and says so. The run folder it writes is read by every function that
takes ``run`` (:mod:`infra_lib.measurements`, :mod:`infra_lib.decode_model`, :mod:`infra_lib.cuda`),
so a chapter set to your folder shows its checks against your machine.

What it measures (the chapters that use each):

- copy (read + write) and read-only bandwidth by working-set size (chapters 2, 3, 5, 6);
- the matmul sweep y = x W, W a square N x N weight, M = 1 ... and the decoder's own layer shapes at
  M = 1 ... 512, with the weights rotated among copies so the cache does not hold them (3, 5, 6, 7);
- the large square matmul, and FP8 with and without fast accumulation (torch; 5, 9);
- strided loads out[i] = 2 x in[i s] in float32, the strided read and the coalesced write counted
  apart (5). The H200 run's kernel computed its index as (i s) mod n over one buffer; this one reads
  a strided view of a buffer s times larger (no index arithmetic, so stride 1 runs at copy speed);
- launch overhead of a tiny op (y = x + 1 on 16 floats, out of place, as the H200 run), eager and
  replayed from a CUDA graph (torch; 2, 5, 7);
- host-device copies, pinned and pageable (torch; 3, 5);
- a Llama-shaped decoder (random weights, grouped-query KV cache): decode steps at the chapter's
  batches and contexts, eager and from a CUDA graph, attention alone at the same shapes, and the
  prefill with the last position's logits and with every position's (6, 7).

**One accounting.** Every byte and FLOP a measurement reports comes from the function the models
call: :func:`infra_lib.ops.matmul`, :func:`infra_lib.ops.elementwise`,
:func:`infra_lib.ops.decode_attention`, :func:`infra_lib.decode_model.step_read_B`,
:func:`infra_lib.decode_model.prefill_work`, :func:`infra_lib.models.decoder_params`. Before it
times anything the benchmark checks those counts against the arrays it actually allocated (their
sizes in bytes) and stops if they disagree, so a model and its measurement cannot count different
work (the error that put a write the model did not count into chapter 5's strided figure, and an
LM head the script did not run into chapter 6's prefill).

Timing: on the GPU, CUDA events around each repetition after warm-ups; on the CPU,
``time.perf_counter``. A repetition of a short kernel runs it several times between its two events
(enough to move the plan's ``inner_target_B`` bytes, 256 MiB on a GPU; matmuls cycle through their weight copies, attention
through every layer's cache), so the host's gap before the first launch is paid once, not per call.
The median of the repetitions is kept (the mean would carry the outliers). Clocks and power are
read once, after the run, from ``nvidia-smi`` (the first visible GPU).
These are measurements: they vary from machine to machine and from run to run.
"""
import argparse
import datetime as _dt
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from . import _check, decode_model, measurements, ops

BACKENDS = ("torch", "numpy")
GiB, MiB = 2**30, 2**20


# ---- what to measure --------------------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    """The sizes of one run. :func:`plan` gives the full run of a backend, or a quick one."""
    working_sets_B: tuple[int, ...]       # copy and read-only streams: bytes of the source buffer
    big_copy_B: int                       # the copy and read figures the models use (source bytes)
    square_n: int                         # N of the sweep's N x N weight
    sweep_m: tuple[int, ...]              # rows of x in the square sweep
    layer_m: tuple[int, ...]              # rows of x for the decoder's own layer shapes
    big_matmul_n: int                     # the large square matmul (and FP8)
    strides: tuple[int, ...]
    strided_elements: int                 # elements written (and read, at the stride)
    launches: int                         # tiny ops per timed repetition of the launch test
    host_copy_B: int                      # host-device copies
    shape: dict[str, int]                 # the decoder (decode_model.decoder_shape)
    prefill_tokens: int
    decode_grid: tuple[tuple[int, int], ...]   # (batch, context) of each decode step
    warmup: int = 3
    reps: int = 10
    weight_copies: int = 4                # matmul weights rotated so a cache does not hold them
    inner_target_B: int = 256 * MiB       # a timed repetition of a short kernel moves at least this much

    def __post_init__(self) -> None:
        for name in ("working_sets_B", "sweep_m", "layer_m", "strides", "decode_grid"):
            v = getattr(self, name)
            if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)):
                raise TypeError(f"{name}: need a tuple, got {_check._show(v)}")
        if not isinstance(self.shape, dict):
            raise TypeError(f"shape: need a decoder shape (decode_model.decoder_shape), got {_check._show(self.shape)}")
        for i, point in enumerate(self.decode_grid):
            if not isinstance(point, (list, tuple)) or len(point) != 2:
                raise TypeError(f"decode_grid[{i}]: need a (batch, context) pair, got {_check._show(point)}")
        for name in ("big_copy_B", "square_n", "big_matmul_n", "strided_elements", "launches", "host_copy_B",
                     "prefill_tokens", "warmup", "reps", "weight_copies", "inner_target_B"):
            _check.count(name, getattr(self, name), "", minimum=1)
        for name in ("working_sets_B", "sweep_m", "layer_m", "strides"):
            values = getattr(self, name)
            if not values:
                raise ValueError(f"{name}: need at least one value")
            for v in values:
                _check.count(name, v, "", minimum=1)
        if 1 not in self.sweep_m:
            raise ValueError("sweep_m: the sweep needs M = 1 (the skinny matmul the decode model reads)")
        if not self.decode_grid:
            raise ValueError("decode_grid: need at least one (batch, context)")
        for b, t in self.decode_grid:
            _check.count("decode_grid batch", b, "requests")
            _check.count("decode_grid context", t, "tokens")
        decode_model._shape(self.shape)          # a shape with every field the models read


LLAMA3_8B = dict(layers=32, d=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256)
"""The decoder of the course's H200 run (Llama-3-8B's shape; chapter 6)."""
SMALL = dict(layers=4, d=1024, heads=8, kv_heads=2, head_dim=128, ffn=2816, vocab=16384)
"""A decoder of about 0.08 B parameters: the CPU's full run, or a GPU with too little memory for Llama-3-8B."""
TINY = dict(layers=2, d=256, heads=4, kv_heads=2, head_dim=64, ffn=768, vocab=4096)
"""A decoder small enough for a CPU run in seconds, with the same structure."""
DECODERS = {"llama3-8b": LLAMA3_8B, "small": SMALL, "tiny": TINY}
STRIDES = (1, 2, 4, 8, 16, 32, 33)
"""The H200 run's strides: powers of two up to a warp's width, and 33, which no bank or sector aligns."""
STRIDED_ELEMENT_B = 4        # float32, as the H200 run and chapter 5's sector model
TINY_ELEMENTS = 16           # the H200 run's tiny op: y = x + 1 on 16 floats


def plan(backend: str = "torch", quick: bool = False, decoder: str | None = None) -> Plan:
    """The run's sizes: the full run of ``backend`` (the H200 run's shapes on a GPU: the whole run
    about ten minutes on an H100-class GPU; see :func:`estimate_s`), or a ``quick`` one of seconds
    (the test suite's CPU run). ``decoder`` replaces the plan's decoder by one of :data:`DECODERS`
    (``"small"`` on a GPU with less memory than Llama-3-8B's weights and batch-128 cache need).

    >>> p = plan("numpy", quick=True)
    >>> p.shape["layers"], p.decode_grid[0], p.sweep_m[0]
    (2, (1, 32), 1)
    """
    backend = _check.choice("backend", backend, BACKENDS)
    quick = _check.flag("quick", quick)
    b = TorchBackend.dtype_B if backend == "torch" else NumpyBackend.dtype_B
    p = _plan(backend, quick, b)
    if decoder is None:
        return p
    return replace(p, shape=decode_model.decoder_shape(**_check.lookup("decoder", decoder, DECODERS, "decoder"),
                                                       dtype_B=b))


def _plan(backend: str, quick: bool, b: int) -> Plan:
    if backend == "torch" and not quick:
        return Plan(working_sets_B=tuple(s * MiB for s in (1, 4, 16, 64, 256, 1024, 4096)), big_copy_B=4 * GiB,
                    square_n=8192, sweep_m=tuple(2**i for i in range(14)), layer_m=(1, 8, 32, 64, 128, 256, 512),
                    big_matmul_n=8192, strides=STRIDES, strided_elements=2**24, launches=100,
                    host_copy_B=1 * GiB, shape=decode_model.decoder_shape(**LLAMA3_8B, dtype_B=b),
                    prefill_tokens=2000,
                    decode_grid=((1, 1000), (1, 4000), (8, 1000), (32, 1000), (32, 2000), (64, 1000), (128, 1000)))
    if not quick:                                    # numpy, full: a minute or two on a laptop
        return Plan(working_sets_B=tuple(s * MiB for s in (1, 4, 16, 64, 256)), big_copy_B=256 * MiB,
                    square_n=2048, sweep_m=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048),
                    layer_m=(1, 8, 32, 128, 512), big_matmul_n=2048, strides=STRIDES,
                    strided_elements=2**22, launches=100, host_copy_B=64 * MiB,
                    shape=decode_model.decoder_shape(**SMALL, dtype_B=b),
                    prefill_tokens=256, decode_grid=((1, 256), (1, 1024), (8, 256), (32, 256)), reps=7,
                    inner_target_B=32 * MiB)
    return Plan(working_sets_B=(256 * 2**10, 4 * MiB), big_copy_B=8 * MiB, square_n=256, sweep_m=(1, 4, 64, 256),
                layer_m=(1, 16), big_matmul_n=256, strides=(1, 4, 16), strided_elements=2**16, launches=200,
                host_copy_B=MiB, shape=decode_model.decoder_shape(**TINY, dtype_B=b), prefill_tokens=64,
                decode_grid=((1, 32), (4, 32), (4, 64)), warmup=1, reps=3, weight_copies=2, inner_target_B=4 * MiB)


def layer_shapes(shape: dict[str, int]) -> dict[str, tuple[int, int]]:
    """The decoder's weight matrices as (K, N): fused QKV, output, fused gate-and-up, down, LM head.

    >>> layer_shapes(decode_model.decoder_shape(**LLAMA3_8B))["qkv"]
    (4096, 6144)
    """
    s = _shape(shape)
    d, hd = s["d"], s["head_dim"]
    return {"qkv": (d, (s["heads"] + 2 * s["kv_heads"]) * hd), "o": (s["heads"] * hd, d),
            "gate_up": (d, 2 * s["ffn"]), "down": (s["ffn"], d), "lm_head": (d, s["vocab"])}


# ---- the accounting (one home: the models' functions) -----------------------------------------

def _shape(shape: dict[str, int]) -> dict[str, int]:
    if not isinstance(shape, dict):
        raise TypeError(f"shape: need a decoder shape (decode_model.decoder_shape), got {_check._show(shape)}")
    try:
        return decode_model._shape(shape)
    except ValueError as err:
        raise ValueError(f"shape: {err}") from None


def copy_op(source_B: int, dtype_B: int) -> ops.Op:
    """A copy of ``source_B`` bytes: each element read once and written once (ops.elementwise)."""
    n, b = _elements(source_B, dtype_B)
    return ops.elementwise(n, 0.0, inputs=1, outputs=1, bytes_per_element=b)


def _elements(source_B: int, dtype_B: int) -> tuple[int, int]:
    size = _check.count("source_B", source_B, "bytes")
    b = _check.count("dtype_B", dtype_B, "bytes")
    if size % b:
        raise ValueError(f"source_B: {size:,} bytes is not a whole number of {b}-byte elements")
    return size // b, b


def read_op(source_B: int, dtype_B: int) -> ops.Op:
    """A reduction over ``source_B`` bytes: each element read once, one add each, nothing written
    back but the scalar (left out)."""
    n, b = _elements(source_B, dtype_B)
    return ops.elementwise(n, 1.0, inputs=1, outputs=0, bytes_per_element=b)


def strided_ops(elements: int, element_B: int) -> tuple[ops.Op, ops.Op]:
    """out[i] = 2 x in[i s]: the strided read of ``elements`` values and the coalesced write of as
    many, as two ops, so the read and the write are reported apart (chapter 5's sector model
    prices the read; the write is full sectors)."""
    n = _check.count("elements", elements, "elements")
    b = _check.count("element_B", element_B, "bytes")
    return (ops.elementwise(n, 1.0, inputs=1, outputs=0, bytes_per_element=b),
            ops.elementwise(n, 0.0, inputs=0, outputs=1, bytes_per_element=b))


def attention_op(batch: int, context: int, shape: dict[str, int]) -> ops.Op:
    """One layer's decode attention over ``context`` cached tokens (ops.decode_attention)."""
    s = _shape(shape)
    return ops.decode_attention(batch, context, s["heads"], s["kv_heads"], s["head_dim"],
                                bytes_per_element=s["dtype_B"])


class AccountingError(ValueError):
    """The bytes a benchmark allocated differ from what the model's function counts."""


def check_accounting(what: str, counted_B: float, allocated_B: float) -> None:
    """Stop a benchmark whose model count differs from the bytes of the arrays it touches."""
    what = _check.text("what", what)
    counted_B = _check.non_negative("counted_B", counted_B, "bytes")
    allocated_B = _check.non_negative("allocated_B", allocated_B, "bytes")
    if counted_B != allocated_B:
        raise AccountingError(f"{what}: the model counts {counted_B:,.0f} bytes (counted_B), the benchmark's "
                              f"arrays hold {allocated_B:,.0f} (allocated_B): they would measure different work")


# ---- backends --------------------------------------------------------------------------------

class Backend:
    """What the benchmarks need from an array library. ``numpy`` runs on this CPU; ``torch`` on CUDA."""
    name = ""
    dtype = ""
    dtype_B = 0

    def device(self) -> dict[str, Any]: raise NotImplementedError
    def versions(self) -> dict[str, str]: raise NotImplementedError
    def randn(self, *shape: int, scale: float = 1.0, f32: bool = False) -> Any: raise NotImplementedError
    def ones(self, n: int) -> Any: raise NotImplementedError
    def empty_like(self, x: Any) -> Any: raise NotImplementedError
    def nbytes(self, x: Any) -> int: raise NotImplementedError
    def copy(self, dst: Any, src: Any) -> None: raise NotImplementedError
    def total(self, x: Any) -> Any: raise NotImplementedError
    def matmul(self, a: Any, b: Any) -> Any: raise NotImplementedError
    def strided(self, out: Any, src: Any, stride: int) -> None: raise NotImplementedError
    def tiny(self, x: Any) -> Any: raise NotImplementedError
    def rms(self, x: Any, g: Any) -> Any: raise NotImplementedError
    def silu_mul(self, g: Any, u: Any) -> Any: raise NotImplementedError
    def split_last(self, x: Any, sizes: Sequence[int]) -> list[Any]: raise NotImplementedError
    def attention(self, q: Any, k: Any, v: Any, causal: bool) -> Any: raise NotImplementedError
    def tokens(self, batch: int, n: int, vocab: int) -> Any: raise NotImplementedError
    def sync(self) -> None: pass

    def time_s(self, fn: Callable[[], Any], warmup: int, reps: int, inner: int = 1) -> list[float]:
        """Seconds per call of ``fn``: ``reps`` samples, each timing ``inner`` calls in a row and
        dividing by ``inner``, after ``warmup`` untimed calls."""
        raise NotImplementedError

    def graph(self, fn: Callable[[], Any]) -> Callable[[], Any] | None:
        """``fn`` captured as a CUDA graph (a replay function), or None where there are none."""
        return None

    def host_copies_GBps(self, size_B: int, warmup: int, reps: int) -> dict[str, float | None]:
        return {"h2d_pinned_GBps": None, "d2h_pinned_GBps": None, "h2d_pageable_GBps": None}

    def fp8_TFLOPs(self, n: int, warmup: int, reps: int) -> dict[str, float | str | None]:
        return {"fp8_TFLOPs": None, "fp8_TFLOPs_fast_accum": None, "fp8_error": f"no FP8 on the {self.name} backend"}

    def clocks(self) -> dict[str, Any]:
        return {}


class NumpyBackend(Backend):
    """This CPU, through numpy (float32: numpy's BLAS has no bfloat16)."""
    name, dtype, dtype_B = "numpy", "float32", 4

    def __init__(self, seed: int = 0) -> None:
        import numpy as np
        self.np = np
        self.rng = np.random.default_rng(seed)

    def device(self) -> dict[str, Any]:
        return {"device": f"CPU: {platform.processor() or platform.machine()} ({os.cpu_count()} logical cores)",
                "spec": None, "gpu": {"name": "cpu", "sms": os.cpu_count() or 1, "mem_bytes": _host_memory_B(),
                                      "l2_bytes": None, "cc": None}}

    def versions(self) -> dict[str, str]:
        return {"python": platform.python_version(), "numpy": self.np.__version__, "os": platform.platform()}

    def randn(self, *shape: int, scale: float = 1.0, f32: bool = False) -> Any:
        return (self.rng.standard_normal(shape, dtype=self.np.float32) * self.np.float32(scale))

    def ones(self, n: int) -> Any:
        return self.np.ones(n, dtype=self.np.float32)

    def empty_like(self, x: Any) -> Any:
        return self.np.empty_like(x)

    def nbytes(self, x: Any) -> int:
        return int(x.nbytes)

    def copy(self, dst: Any, src: Any) -> None:
        self.np.copyto(dst, src)

    def total(self, x: Any) -> Any:
        return x.sum()

    def matmul(self, a: Any, b: Any) -> Any:
        return a @ b

    def strided(self, out: Any, src: Any, stride: int) -> None:
        self.np.multiply(src[::stride], self.np.float32(2.0), out=out)

    def tiny(self, x: Any) -> Any:
        return x + self.np.float32(1.0)

    def rms(self, x: Any, g: Any) -> Any:
        np = self.np
        return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + np.float32(1e-5)) * g

    def silu_mul(self, g: Any, u: Any) -> Any:
        np = self.np                       # sigmoid(g) = (1 + tanh(g / 2)) / 2, no overflow for large |g|
        return g * (np.float32(0.5) * (np.float32(1.0) + np.tanh(np.float32(0.5) * g))) * u

    def split_last(self, x: Any, sizes: Sequence[int]) -> list[Any]:
        cuts = list(self.np.cumsum(sizes)[:-1])
        return self.np.split(x, cuts, axis=-1)

    def attention(self, q: Any, k: Any, v: Any, causal: bool) -> Any:
        """q [B, H, T, dh], k and v [B, Hkv, S, dh]; grouped-query, softmax over the keys. Causal
        prefill is computed in blocks of query rows against the keys up to each block's end, so it
        executes about the half of the score matrix that the model counts (block 16: at most
        16 / T more)."""
        np = self.np
        b, h, t, dh = q.shape
        hk, s = k.shape[1], k.shape[2]
        g = h // hk
        qg = q.reshape(b, hk, g, t, dh)
        out = np.empty_like(qg)
        scale = np.float32(1.0 / math.sqrt(dh))
        block = 16 if causal else t
        for i0 in range(0, t, block):
            i1 = min(t, i0 + block)
            keys = s - t + i1 if causal else s
            sc = np.einsum("bkgtd,bksd->bkgts", qg[:, :, :, i0:i1], k[:, :, :keys]) * scale
            if causal:
                rows = np.arange(s - t + i0, s - t + i1)[:, None]
                sc = np.where(np.arange(keys)[None, :] <= rows, sc, np.float32(-np.inf))
            sc = np.exp(sc - sc.max(axis=-1, keepdims=True))
            sc /= sc.sum(axis=-1, keepdims=True)
            out[:, :, :, i0:i1] = np.einsum("bkgts,bksd->bkgtd", sc, v[:, :, :keys])
        return out.reshape(b, h, t, dh)

    def tokens(self, batch: int, n: int, vocab: int) -> Any:
        return self.rng.integers(0, vocab, size=(batch, n))

    def time_s(self, fn: Callable[[], Any], warmup: int, reps: int, inner: int = 1) -> list[float]:
        for _ in range(warmup):
            fn()
        out = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            out.append((time.perf_counter() - t0) / inner)
        return out


class TorchBackend(Backend):
    """A CUDA GPU through PyTorch, in bfloat16. Refuses to start without a CUDA device."""
    name, dtype, dtype_B = "torch", "bfloat16", 2

    def __init__(self, seed: int = 0) -> None:
        try:
            import torch                        # type: ignore[import-not-found]
            import torch.nn.functional as F     # type: ignore[import-not-found]
        except ImportError:
            raise RuntimeError("the torch backend needs PyTorch with CUDA: pip install -e '.[gpu]' "
                               "(or run the CPU harness with --backend numpy)") from None
        if not torch.cuda.is_available():
            raise RuntimeError(f"no CUDA device: PyTorch {torch.__version__} sees none "
                               f"(torch.cuda.is_available() is False); run on a machine with an NVIDIA GPU, "
                               f"or the CPU harness with --backend numpy")
        version = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
        if version < (2, 8):
            raise RuntimeError(f"PyTorch {torch.__version__}: the benchmark needs 2.8 or newer, whose F.rms_norm is "
                               f"one fused kernel, as infra_lib.decode_model counts it (pip install -e '.[gpu]')")
        self.torch, self.F = torch, F
        self.dev = torch.device("cuda")
        self.gen = torch.Generator(device=self.dev).manual_seed(seed)
        self.dt = torch.bfloat16

    def device(self) -> dict[str, Any]:
        p = self.torch.cuda.get_device_properties(0)
        return {"device": p.name, "spec": _registry_key(p.name),
                "gpu": {"name": p.name, "sms": p.multi_processor_count, "mem_bytes": p.total_memory,
                        "l2_bytes": getattr(p, "L2_cache_size", None), "cc": f"{p.major}.{p.minor}"}}

    def versions(self) -> dict[str, str]:
        t = self.torch
        return {"python": platform.python_version(), "torch": t.__version__, "cuda": str(t.version.cuda),
                "cudnn": str(t.backends.cudnn.version()), "driver": _nvidia_smi("driver_version") or "unknown",
                "os": platform.platform()}

    def randn(self, *shape: int, scale: float = 1.0, f32: bool = False) -> Any:
        dt = self.torch.float32 if f32 else self.dt
        return self.torch.randn(*shape, device=self.dev, dtype=dt, generator=self.gen) * scale

    def ones(self, n: int) -> Any:
        return self.torch.ones(n, device=self.dev, dtype=self.dt)

    def empty_like(self, x: Any) -> Any:
        return self.torch.empty_like(x)

    def nbytes(self, x: Any) -> int:
        return int(x.numel() * x.element_size())

    def copy(self, dst: Any, src: Any) -> None:
        dst.copy_(src)

    def total(self, x: Any) -> Any:
        return x.sum()

    def matmul(self, a: Any, b: Any) -> Any:
        return a @ b

    def strided(self, out: Any, src: Any, stride: int) -> None:
        self.torch.mul(src[::stride], 2.0, out=out)

    def tiny(self, x: Any) -> Any:
        return x + 1.0

    def rms(self, x: Any, g: Any) -> Any:
        return self.F.rms_norm(x, (x.shape[-1],), g, eps=1e-5)

    def silu_mul(self, g: Any, u: Any) -> Any:
        return self.F.silu(g) * u

    def split_last(self, x: Any, sizes: Sequence[int]) -> list[Any]:
        return list(x.split(list(sizes), dim=-1))

    def attention(self, q: Any, k: Any, v: Any, causal: bool) -> Any:
        return self.F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)

    def tokens(self, batch: int, n: int, vocab: int) -> Any:
        return self.torch.randint(0, vocab, (batch, n), device=self.dev, generator=self.gen)

    def sync(self) -> None:
        self.torch.cuda.synchronize()

    def time_s(self, fn: Callable[[], Any], warmup: int, reps: int, inner: int = 1) -> list[float]:
        torch = self.torch
        with torch.inference_mode():
            for _ in range(warmup):
                fn()
            torch.cuda.synchronize()
            out = []
            for _ in range(reps):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(inner):
                    fn()
                b.record()
                b.synchronize()
                out.append(a.elapsed_time(b) / 1e3 / inner)
        return out

    def graph(self, fn: Callable[[], Any]) -> Callable[[], Any] | None:
        torch = self.torch
        with torch.inference_mode():
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(2):
                    fn()
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                fn()
        return g.replay

    def host_copies_GBps(self, size_B: int, warmup: int, reps: int) -> dict[str, float | None]:
        torch = self.torch
        n = size_B // 2
        dev = torch.empty(n, device=self.dev, dtype=self.dt)
        pinned = torch.empty(n, dtype=self.dt, pin_memory=True)
        pageable = torch.empty(n, dtype=self.dt)
        rate = lambda fn: size_B / statistics.median(self.time_s(fn, warmup, reps)) / 1e9  # noqa: E731
        return {"h2d_pinned_GBps": rate(lambda: dev.copy_(pinned, non_blocking=True)),
                "d2h_pinned_GBps": rate(lambda: pinned.copy_(dev, non_blocking=True)),
                "h2d_pageable_GBps": rate(lambda: dev.copy_(pageable))}

    def fp8_TFLOPs(self, n: int, warmup: int, reps: int) -> dict[str, float | str | None]:
        """E4M3 x E4M3 -> BF16 through ``torch._scaled_mm``, per-tensor scales: ``fp8_TFLOPs`` with the
        default accumulation (``use_fast_accum=False``, what the H200 run measured) and
        ``fp8_TFLOPs_fast_accum``. A build or device without FP8 records why, and the run goes on."""
        torch = self.torch
        none: dict[str, float | str | None] = {"fp8_TFLOPs": None, "fp8_TFLOPs_fast_accum": None}
        f8 = getattr(torch, "float8_e4m3fn", None)
        if f8 is None or not hasattr(torch, "_scaled_mm") or torch.cuda.get_device_capability() < (8, 9):
            return {**none, "fp8_error": "no float8_e4m3fn / torch._scaled_mm, or compute capability below 8.9"}
        try:
            a = self.randn(n, n).to(f8)
            b = self.randn(n, n).to(f8).t().contiguous().t()       # column-major, as _scaled_mm wants
            one = torch.ones((), device=self.dev, dtype=torch.float32)
            flops = ops.matmul(n, n, n, 1, 1, 2).flops
            out: dict[str, float | str | None] = {}
            for key, fast in (("fp8_TFLOPs", False), ("fp8_TFLOPs_fast_accum", True)):
                fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=self.dt,  # noqa: E731
                                              use_fast_accum=fast)
                out[key] = flops / statistics.median(self.time_s(fn, warmup, reps)) / 1e12
            return out
        except (RuntimeError, TypeError, ValueError) as err:    # an unsupported build: say so, go on
            return {**none, "fp8_error": f"{type(err).__name__}: {err}"[:300]}

    def clocks(self) -> dict[str, Any]:
        q = {k: _nvidia_smi(k) for k in ("clocks.sm", "clocks.mem", "clocks.max.sm", "power.draw", "power.limit",
                                         "temperature.gpu", "pstate")}
        return {k: v for k, v in q.items() if v is not None}


def _host_memory_B() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 1


def _nvidia_smi(query: str) -> str | None:
    import subprocess
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out or None


# (registry entry, words the CUDA device name must contain, words it must not): the first match wins
_DEVICE_NAMES = (
    ("h200_sxm", ("h200",), ("nvl", "gh200")),
    ("h100_sxm5", ("h100",), ("pcie", "nvl", "gh200")),      # "NVIDIA H100 80GB HBM3" is the SXM5 part
    ("h100_pcie", ("h100", "pcie"), ()),
    ("a100_sxm4_40gb", ("a100", "sxm4", "40gb"), ()),
    ("b200_hgx", ("b200",), ("gb200",)),
    ("v100_sxm2", ("v100", "sxm2"), ()),
)


def _registry_key(name: str) -> str | None:
    """The registry entry whose datasheet describes a CUDA device name, or None where none does
    (or the entry has no memory bandwidth to compare with).

    >>> _registry_key("NVIDIA H100 80GB HBM3"), _registry_key("NVIDIA GH200 480GB"), _registry_key("NVIDIA H200")
    ('h100_sxm5', None, 'h200_sxm')
    """
    from . import hardware
    n = _check.text("name", name).lower()
    for key, words, unless in _DEVICE_NAMES:
        if all(w in n for w in words) and not any(w in n for w in unless):
            try:
                hardware.value(key, "mem_bw_Bps")
            except (KeyError, ValueError):
                return None
            return key
    return None


def backend(name: str) -> Backend:
    """The backend called ``name``: 'torch' (CUDA, refuses without a device) or 'numpy' (this CPU)."""
    name = _check.choice("backend", name, BACKENDS)
    return TorchBackend() if name == "torch" else NumpyBackend()


# ---- the decoder ---------------------------------------------------------------------------------

class Decoder:
    """A Llama-shaped decoder with random weights and a grouped-query KV cache, written once for both
    backends: fused RMSNorm, a fused QKV projection, attention over the cache, the output
    projection, SwiGLU as SiLU(gate) x up, residual adds; the LM head on the last position's
    hidden state (``logits="last"``) or on every position's (``"all"``). The elementwise kernels are
    the ones :func:`infra_lib.decode_model.elementwise_B` counts."""

    def __init__(self, be: Backend, shape: dict[str, int]) -> None:
        s = self.s = decode_model._shape(shape)
        if s["dtype_B"] != be.dtype_B:
            raise ValueError(f"shape: dtype_B {s['dtype_B']} but the {be.name} backend computes in {be.dtype} "
                             f"({be.dtype_B} bytes)")
        self.be = be
        d, hd, h, hk, f, v = s["d"], s["head_dim"], s["heads"], s["kv_heads"], s["ffn"], s["vocab"]
        w = lambda k, n: be.randn(k, n, scale=1.0 / math.sqrt(k))   # noqa: E731
        self.layers = [dict(wqkv=w(d, (h + 2 * hk) * hd), wo=w(h * hd, d), wgu=w(d, 2 * f), wd=w(f, d),
                            n1=be.ones(d), n2=be.ones(d)) for _ in range(s["layers"])]
        self.emb, self.lm_head, self.nf = w(v, d), w(d, v), be.ones(d)
        allocated = sum(be.nbytes(t) for lw in self.layers for t in lw.values())
        allocated += be.nbytes(self.emb) + be.nbytes(self.lm_head) + be.nbytes(self.nf)
        check_accounting("decoder weights", decode_model.decoder_shape(
            **{k: s[k] for k in ("layers", "d", "heads", "kv_heads", "head_dim", "ffn", "vocab")},
            dtype_B=s["dtype_B"])["weight_bytes"], allocated)

    def cache(self, batch: int, length: int) -> list[tuple[Any, Any]]:
        s = self.s
        return [(self.be.randn(batch, s["kv_heads"], length, s["head_dim"], scale=0.1),
                 self.be.randn(batch, s["kv_heads"], length, s["head_dim"], scale=0.1)) for _ in range(s["layers"])]

    def forward(self, tokens: Any, caches: list[tuple[Any, Any]], pos: int, logits: str = "last") -> Any:
        be, s = self.be, self.s
        h, hk, hd = s["heads"], s["kv_heads"], s["head_dim"]
        x = self.emb[tokens]
        b, t = x.shape[0], x.shape[1]
        if t > 1 and pos > 0:        # PyTorch's is_causal aligns the mask top-left; numpy's, bottom-right
            raise ValueError(f"pos: a prefill of {t} tokens after {pos} cached ones is not measured here")
        for lw, (kc, vc) in zip(self.layers, caches):
            q, k, v = be.split_last(be.matmul(be.rms(x, lw["n1"]), lw["wqkv"]), (h * hd, hk * hd, hk * hd))
            kc[:, :, pos:pos + t] = k.reshape(b, t, hk, hd).transpose(0, 2, 1, 3) if be.name == "numpy" \
                else k.view(b, t, hk, hd).transpose(1, 2)
            vc[:, :, pos:pos + t] = v.reshape(b, t, hk, hd).transpose(0, 2, 1, 3) if be.name == "numpy" \
                else v.view(b, t, hk, hd).transpose(1, 2)
            qh = q.reshape(b, t, h, hd).transpose(0, 2, 1, 3) if be.name == "numpy" else q.view(b, t, h, hd).transpose(1, 2)
            a = be.attention(qh, kc[:, :, :pos + t], vc[:, :, :pos + t], causal=t > 1)
            a = a.transpose(0, 2, 1, 3).reshape(b, t, h * hd) if be.name == "numpy" else a.transpose(1, 2).reshape(b, t, h * hd)
            x = x + be.matmul(a, lw["wo"])
            gate, up = be.split_last(be.matmul(be.rms(x, lw["n2"]), lw["wgu"]), (s["ffn"], s["ffn"]))
            x = x + be.matmul(be.silu_mul(gate, up), lw["wd"])
        last = x[:, -1] if _check.choice("logits", logits, decode_model.LOGITS) == "last" else x
        return be.matmul(be.rms(last, self.nf), self.lm_head)


# ---- the benchmarks --------------------------------------------------------------------------

def _median(be: Backend, fn: Callable[[], Any], p: Plan, reps: int | None = None, inner: int = 1) -> float:
    return float(statistics.median(be.time_s(fn, p.warmup, reps or p.reps, inner)))


@_check.finite
def inner_calls(moved_B: float, target_B: float = 256 * MiB) -> int:
    """Calls of a kernel per timed repetition: enough to move ``target_B`` (at least one).

    >>> inner_calls(16 * MiB), inner_calls(4 * GiB)
    (16, 1)
    """
    b = _check.positive("moved_B", moved_B, "bytes")
    t = _check.positive("target_B", target_B, "bytes")
    return max(1, math.ceil(t / b))


def _stream(be: Backend, source_B: int, p: Plan) -> tuple[dict[str, float], dict[str, float]]:
    n = source_B // be.dtype_B
    src = be.randn(n)
    dst = be.empty_like(src)
    c, r = copy_op(source_B, be.dtype_B), read_op(source_B, be.dtype_B)
    check_accounting(f"copy of {source_B:,} B", c.moved_B, be.nbytes(src) + be.nbytes(dst))
    check_accounting(f"read of {source_B:,} B", r.moved_B, be.nbytes(src))
    tc = _median(be, lambda: be.copy(dst, src), p, inner=inner_calls(c.moved_B, p.inner_target_B))
    tr = _median(be, lambda: be.total(src), p, inner=inner_calls(r.moved_B, p.inner_target_B))
    return ({"bytes_moved": c.moved_B, "s_median": tc, "GBps": c.moved_B / tc / 1e9},
            {"bytes_read": r.moved_B, "s_median": tr, "GBps": r.moved_B / tr / 1e9})


def _matmul_row(be: Backend, m: int, k: int, n: int, p: Plan) -> dict[str, float]:
    op = ops.matmul(m, k, n, be.dtype_B, be.dtype_B, be.dtype_B)
    x = be.randn(m, k)
    ws = [be.randn(k, n, scale=1.0 / math.sqrt(k)) for _ in range(p.weight_copies)]
    y = be.matmul(x, ws[0])
    check_accounting(f"matmul {m}x{k}x{n}", op.moved_B, be.nbytes(x) + be.nbytes(ws[0]) + be.nbytes(y))
    i = [0]

    def step() -> Any:                   # a different weight each call: the cache holds none
        i[0] = (i[0] + 1) % len(ws)
        return be.matmul(x, ws[i[0]])
    t = _median(be, step, p, inner=inner_calls(op.moved_B, p.inner_target_B))
    return {"M": m, "K": k, "N": n, "flops": op.flops, "bytes": op.moved_B, "intensity": op.intensity,
            "s_median": t, "TFLOPs": op.flops / t / 1e12, "GBps": op.moved_B / t / 1e9}


def measure(be: Backend, p: Plan, log: Callable[[str], None] = lambda s: None) -> dict[str, dict[str, Any]]:
    """Run every benchmark of ``p`` on ``be``; the three files of a run folder, parsed."""
    be = _check.instance("be", be, Backend)
    p = _check.instance("p", p, Plan)
    started = time.perf_counter()
    dev = be.device()
    rc: dict[str, Any] = {"device": be.name, be.name: be.versions().get(be.name, ""), "gpu": dev["gpu"]}
    lad: dict[str, Any] = {}

    log("copy and read-only streams")
    rc["copy"], rc["read"] = _stream(be, p.big_copy_B, p)
    lad["copy_by_working_set"], lad["read_by_working_set"] = [], []
    for size in p.working_sets_B:
        c, r = _stream(be, size, p)
        # working sets in MiB, source and destination together, as in the H200 run's ladder.json
        lad["copy_by_working_set"].append({"working_set_MB": 2 * size / MiB, "GBps": c["GBps"]})
        lad["read_by_working_set"].append({"working_set_MB": size / MiB, "GBps": r["GBps"]})

    log("matmul sweep")
    rc["matmul_roofline"] = [_matmul_row(be, m, p.square_n, p.square_n, p) for m in p.sweep_m]
    rc["matmul_layers"] = [{"layer": name, **_matmul_row(be, m, k, n, p)}
                           for name, (k, n) in layer_shapes(p.shape).items() for m in p.layer_m]
    big = _matmul_row(be, p.big_matmul_n, p.big_matmul_n, p.big_matmul_n, p)
    lad["matmul_TFLOPs"], lad["matmul_dtype"] = big["TFLOPs"], be.dtype     # the large square matmul
    lad["bf16_TFLOPs"] = big["TFLOPs"] if be.dtype == "bfloat16" else None
    lad.update(be.fp8_TFLOPs(p.big_matmul_n, p.warmup, p.reps))

    log("strided loads")
    lad["strided_loads"] = []
    for stride in p.strides:
        src = be.randn(p.strided_elements * stride, f32=True)
        out = be.randn(p.strided_elements, f32=True)
        rd, wr = strided_ops(p.strided_elements, STRIDED_ELEMENT_B)
        check_accounting(f"strided read at stride {stride}", rd.moved_B, be.nbytes(src[::stride]))
        check_accounting(f"strided write at stride {stride}", wr.moved_B, be.nbytes(out))
        t = _median(be, lambda: be.strided(out, src, stride), p, inner=inner_calls(rd.moved_B + wr.moved_B, p.inner_target_B))
        lad["strided_loads"].append({"stride": stride, "element_B": STRIDED_ELEMENT_B, "read_B": rd.moved_B,
                                     "write_B": wr.moved_B, "s_median": t,
                                     "read_GBps": rd.moved_B / t / 1e9, "write_GBps": wr.moved_B / t / 1e9,
                                     "useful_GBps": (rd.moved_B + wr.moved_B) / t / 1e9})

    log("launch overhead")
    x = be.randn(TINY_ELEMENTS, f32=True)

    def launches() -> None:
        for _ in range(p.launches):
            be.tiny(x)
    lad["tiny_op_eager_us"] = _median(be, launches, p) / p.launches * 1e6
    replay = be.graph(launches)
    lad["tiny_op_graph_us"] = _median(be, replay, p) / p.launches * 1e6 if replay else None
    lad["launches_per_rep"], lad["tiny_op"] = p.launches, f"y = x + 1, {TINY_ELEMENTS} float32, out of place"

    log("host-device copies")
    lad.update(be.host_copies_GBps(p.host_copy_B, p.warmup, p.reps))

    log("decoder")
    dec = Decoder(be, p.shape)
    s = dec.s
    rc["model"] = {k: s[k] for k in ("layers", "d", "heads", "kv_heads", "head_dim", "ffn", "vocab", "params",
                                     "weight_bytes", "kv_bytes_per_token")}
    P = p.prefill_tokens
    caches = dec.cache(1, P)
    toks = be.tokens(1, P, s["vocab"])
    pre: dict[str, float] = {"P": P, "batch": 1}
    for logits in decode_model.LOGITS:
        w = decode_model.prefill_work(P, logits, run=s)
        t = _median(be, lambda: dec.forward(toks, caches, 0, logits), p, reps=max(3, p.reps // 2))
        key = "s_median" if logits == "last" else "s_median_all_logits"
        pre[key] = t
        pre["flops" if logits == "last" else "flops_all_logits"] = w.flops
    pre["TFLOPs_counted"] = pre["flops"] / pre["s_median"] / 1e12    # the FLOPs the model counts (prefill_work)
    rc["prefill"] = pre
    del caches
    rc["decode"], rc["attention"] = [], []
    for b, ctx in p.decode_grid:
        caches = dec.cache(b, ctx + 1)
        kv_cached = sum(be.nbytes(kc[:, :, :ctx]) + be.nbytes(vc[:, :, :ctx]) for kc, vc in caches)
        need = decode_model.step_read_B(b, ctx, run=s)
        check_accounting(f"decode step KV cache at batch {b}, context {ctx}",
                         need - decode_model.weight_read_B(run=s), kv_cached)
        tok = be.tokens(b, 1, s["vocab"])
        step = lambda: dec.forward(tok, caches, ctx)     # noqa: E731
        te = _median(be, step, p)
        replay = be.graph(step)
        tg = _median(be, replay, p, reps=2 * p.reps) if replay else None
        rc["decode"].append({"batch": b, "ctx": ctx, "s_eager": te, "s_graph": tg, "bytes_min": need,
                             "kv_bytes_read": b * ctx * s["kv_bytes_per_token"],
                             "GBps": need / (tg or te) / 1e9, "tokens_per_s": b / (tg or te)})
        # attention alone, through every layer's cache in turn (one layer's cache may fit in L2)
        op = attention_op(b, ctx + 1, s)
        q = be.randn(b, s["heads"], 1, s["head_dim"])
        check_accounting(f"attention at batch {b}, context {ctx + 1}", op.moved_B * s["layers"],
                         sum(be.nbytes(kc) + be.nbytes(vc) for kc, vc in caches))

        def attention_all() -> None:
            for kc, vc in caches:
                be.attention(q, kc, vc, causal=False)
        ta = _median(be, attention_all, p) / s["layers"]
        rc["attention"].append({"batch": b, "ctx": ctx + 1, "bytes": op.moved_B, "flops": op.flops, "s_median": ta,
                                "GBps": op.moved_B / ta / 1e9, "per": "layer (timed over every layer's cache)"})
        del caches

    elapsed = time.perf_counter() - started
    meta = {"format": measurements.FORMAT, "backend": be.name, "device": dev["device"], "spec": dev["spec"],
            "dtype": be.dtype, "dtype_B": be.dtype_B,
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "versions": be.versions(), "taken_by": "python -m infra_lib.gpu_bench",
            "timing": (f"{'CUDA events' if be.name == 'torch' else 'time.perf_counter'} around each repetition, "
                       f"{p.warmup} warm-ups, median of {p.reps} repetitions (prefill: {max(3, p.reps // 2)}; "
                       f"CUDA-graph replays: {2 * p.reps})"),
            "clocks": be.clocks() or None, "elapsed_s": elapsed, "plan": _plan_record(p)}
    return {"run": meta, "reality_check": rc, "ladder": lad}


def _plan_record(p: Plan) -> dict[str, Any]:
    d = asdict(p)
    d["decode_grid"] = [list(x) for x in p.decode_grid]
    return d


# ---- the run folder -------------------------------------------------------------------------

def write(run: dict[str, dict[str, Any]], out: str | Path) -> Path:
    """Write a measured run (:func:`measure`) as a run folder, with a README generated from it, and
    check it as :func:`infra_lib.measurements.load` will. An existing non-empty folder is refused."""
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"out: {str(out)!r} exists and is not empty; choose a new folder")
    out.mkdir(parents=True, exist_ok=True)
    for name in measurements.FILES:
        (out / f"{name}.json").write_text(json.dumps(run[name], indent=1) + "\n", encoding="utf-8")
    (out / "README.md").write_text(readme(run), encoding="utf-8")
    measurements.validate(out)
    return out


def _f(x: float | None, fmt: str = ",.1f") -> str:
    return "n/a" if x is None else format(x, fmt)


def readme(run: dict[str, dict[str, Any]]) -> str:
    """The README of a run folder: what was measured, how, on what, and the figures the models use."""
    if not isinstance(run, dict) or any(not isinstance(run.get(k), dict) for k in measurements.FILES):
        raise TypeError(f"run: need the three files of a measured run (measure()), keys "
                        f"{', '.join(measurements.FILES)}; got {type(run).__name__}")
    m, rc, lad = run["run"], run["reality_check"], run["ladder"]
    s = rc["model"]
    lines = [f"# Measurements on {m['device']}, {m['date']}", "",
             f"Taken by `{m['taken_by']}` (backend `{m['backend']}`, {m['dtype']}); "
             f"{'; '.join(f'{k} {v}' for k, v in m['versions'].items())}. Timing: {m['timing']}. "
             f"The whole run took {m['elapsed_s']:.0f} s. One run: treat every figure as one sample, not a spec.", ""]
    if m.get("clocks"):
        lines += ["Clocks and power when the run ended (nvidia-smi): "
                  + ", ".join(f"{k} {v}" for k, v in m["clocks"].items()) + ".", ""]
    lines += ["Every byte and FLOP below is counted by the function the course's models call "
              "(infra_lib.ops, infra_lib.decode_model), checked against the arrays the benchmark allocated.", "",
              "## reality_check.json", "",
              f"- `copy`: {rc['copy']['bytes_moved'] / 2 / 1e6:,.0f} MB copied, bytes read + written: "
              f"{rc['copy']['GBps']:,.1f} GB/s. `read`: a sum that only reads: {rc['read']['GBps']:,.1f} GB/s.",
              f"- `matmul_roofline`: y = x W, W {rc['matmul_roofline'][0]['K']} x {rc['matmul_roofline'][0]['N']}, "
              f"M = {', '.join(str(r['M']) for r in rc['matmul_roofline'])}; at M = 1 "
              f"{rc['matmul_roofline'][0]['GBps']:,.1f} GB/s, best {max(r['TFLOPs'] for r in rc['matmul_roofline']):,.2f} "
              f"TFLOP/s. `matmul_layers`: the decoder's own weights at M = "
              f"{', '.join(sorted({str(r['M']) for r in rc['matmul_layers']}, key=int))}.",
              f"- `model`: {s['layers']} layers, d {s['d']}, {s['heads']} query heads, {s['kv_heads']} KV heads, "
              f"head_dim {s['head_dim']}, FFN {s['ffn']} (SwiGLU), vocabulary {s['vocab']}: {s['params']:,} parameters, "
              f"{s['kv_bytes_per_token']:,} KV bytes per token.",
              f"- `prefill`: {rc['prefill']['P']} tokens, batch 1: {rc['prefill']['s_median'] * 1e3:,.2f} ms with the "
              f"last position's logits, {rc['prefill']['s_median_all_logits'] * 1e3:,.2f} ms with every position's.",
              "- `decode`: one step, eager and (GPU) replayed from a CUDA graph; `bytes_min` = every weight but the "
              "embedding table + the KV cache of every sequence. `attention`: one layer's attention alone.", "",
              "| batch | context | eager ms | CUDA graph ms | attention (one layer) GB/s |", "|---|---|---|---|---|"]
    for r, a in zip(rc["decode"], rc["attention"]):
        lines.append(f"| {r['batch']} | {r['ctx']} | {r['s_eager'] * 1e3:,.3f} | "
                     f"{_f(None if r['s_graph'] is None else r['s_graph'] * 1e3, ',.3f')} | {a['GBps']:,.1f} |")
    lines += ["", "## ladder.json", "",
              f"- Host-device copies: pinned {_f(lad['h2d_pinned_GBps'])} GB/s to the device, "
              f"{_f(lad['d2h_pinned_GBps'])} back; pageable {_f(lad['h2d_pageable_GBps'])} GB/s.",
              "- Copy by working set (source + destination): " + ", ".join(f"{r['working_set_MB']:,.2f} MiB {r['GBps']:,.0f} GB/s"
                                                     for r in lad["copy_by_working_set"]) + ".",
              f"- Launch overhead of a tiny op: {lad['tiny_op_eager_us']:,.2f} µs eager, "
              f"{_f(lad['tiny_op_graph_us'], ',.2f')} µs from a CUDA graph.",
              f"- Large square matmul ({lad['matmul_dtype']}): {lad['matmul_TFLOPs']:,.2f} TFLOP/s; FP8 "
              f"{_f(lad['fp8_TFLOPs'], ',.0f')} TFLOP/s with the default accumulation, "
              f"{_f(lad['fp8_TFLOPs_fast_accum'], ',.0f')} with fast accumulation"
              + (f" ({lad['fp8_error']})" if lad.get("fp8_error") else "") + ".",
              "- Strided loads, out[i] = 2 in[i s] in float32 (a strided view, not the H200 run's (i s) mod n "
              "index), read and write counted apart: "
              + ", ".join(f"s = {r['stride']}: read {r['read_GBps']:,.1f}, write {r['write_GBps']:,.1f} GB/s"
                          for r in lad["strided_loads"]) + ".", ""]
    return "\n".join(lines)


# ---- how long it takes ------------------------------------------------------------------------

CAPTURE_S = 1.0        # a CUDA graph capture (a guess: warm-up calls, capture, instantiation)
FILL_SHARE = 0.1       # random initialisation fills memory at about a tenth of the copy bandwidth (a guess)


@_check.finite
def estimate_s(p: Plan, mem_Bps: float = 3.0e12, flop_s: float = 600e12, launch_s: float = 8e-6) -> float:
    """A rough duration of the run ``p`` on a device with the given bandwidth, matmul rate and launch
    cost (defaults: an H100-class GPU): every timed call priced by the roofline (the larger of its
    bytes over the bandwidth and its FLOPs over the rate, at least one launch), times its warm-ups
    and repetitions, plus the graph captures (:data:`CAPTURE_S` each) and the random fill of every
    buffer (:data:`FILL_SHARE` of the bandwidth). Python's own time between calls is not counted:
    read it as a lower bound, and the run's ``elapsed_s`` as the answer.

    >>> round(estimate_s(plan("torch")) / 60, 1) < 10
    True
    """
    p = _check.instance("p", p, Plan)
    bw = _check.positive("mem_Bps", mem_Bps, "bytes/s")
    fl = _check.positive("flop_s", flop_s, "FLOP/s")
    ln = _check.positive("launch_s", launch_s, "s")
    calls = p.warmup + p.reps
    cost = lambda op: max(op.moved_B / bw, op.flops / fl, ln)   # noqa: E731

    def timed(op: ops.Op) -> float:      # warm-ups, then every repetition's inner calls
        return (p.warmup + p.reps * inner_calls(op.moved_B, p.inner_target_B)) * cost(op)
    b = p.shape["dtype_B"]
    t = 0.0
    for size in (p.big_copy_B, *p.working_sets_B):
        t += timed(copy_op(size, b)) + timed(read_op(size, b))
    for m in p.sweep_m:
        t += timed(ops.matmul(m, p.square_n, p.square_n, b, b, b))
    for k, n in layer_shapes(p.shape).values():
        for m in p.layer_m:
            t += timed(ops.matmul(m, k, n, b, b, b))
    t += 3 * calls * cost(ops.matmul(p.big_matmul_n, p.big_matmul_n, p.big_matmul_n, b, b, b))
    for s in p.strides:                  # strided reads priced at one 32-byte sector per element
        rd, wr = strided_ops(p.strided_elements, STRIDED_ELEMENT_B)
        sector = max(1, min(s, 32 // STRIDED_ELEMENT_B))
        t += (p.warmup + p.reps * inner_calls(rd.moved_B + wr.moved_B, p.inner_target_B)) * cost(
            ops.Op(0.0, rd.moved_B * sector + wr.moved_B))
    t += 2 * calls * p.launches * ln
    t += 3 * calls * p.host_copy_B / 25e9
    weights = decode_model.weight_read_B(run=p.shape)
    for logits in decode_model.LOGITS:
        w = decode_model.prefill_work(p.prefill_tokens, logits, run=p.shape)
        t += (p.warmup + max(3, p.reps // 2)) * max(w.flops / fl, weights / bw)
    allocated = decode_model.weight_read_B(run=p.shape)      # what is filled with random numbers
    for bt, ctx in p.decode_grid:
        step = decode_model.step_read_B(bt, ctx, run=p.shape) / bw + p.shape["layers"] * 12 * ln
        t += (2 * p.warmup + 3 * p.reps) * step + calls * cost(attention_op(bt, ctx + 1, p.shape))
        t += CAPTURE_S                                     # the step's CUDA graph
        allocated += bt * (ctx + 1) * p.shape["kv_bytes_per_token"]
    allocated += 2 * (p.big_copy_B + sum(p.working_sets_B)) + p.weight_copies * p.square_n ** 2 * b
    return t + CAPTURE_S + allocated / (bw * FILL_SHARE)


@_check.finite
def peak_memory_B(p: Plan) -> float:
    """The most the run holds at once, roughly: the larger of the decoder (its weights, the largest
    decode grid point's KV cache and every position's logits of the prefill) and the copy test
    (source and destination of the large copy).

    >>> round(peak_memory_B(plan("torch")) / 1e9, 2)      # Llama-3-8B's 16.06 GB + batch 128's 16.79 GB
    32.85
    """
    p = _check.instance("p", p, Plan)
    s = p.shape
    kv = max(b * (t + 1) for b, t in p.decode_grid) * s["kv_bytes_per_token"]
    logits = p.prefill_tokens * s["vocab"] * s["dtype_B"]
    return float(max(s["weight_bytes"] + max(kv, logits), 2 * p.big_copy_B))


def describe(p: Plan) -> str:
    """What a run of ``p`` measures, one line per benchmark (the ``--dry-run`` output)."""
    p = _check.instance("p", p, Plan)
    s = p.shape
    return "\n".join([
        f"copy and read-only streams: {p.big_copy_B / 1e6:,.0f} MB, and working sets "
        + ", ".join(f"{w / 1e6:,.2f}" for w in p.working_sets_B) + " MB",
        f"matmul sweep: W {p.square_n} x {p.square_n}, M = {', '.join(map(str, p.sweep_m))}; the decoder's layers "
        f"{', '.join(f'{k} {a}x{b}' for k, (a, b) in layer_shapes(s).items())} at M = {', '.join(map(str, p.layer_m))}",
        f"large matmul {p.big_matmul_n}^3 (and FP8 with and without fast accumulation on a GPU that has it)",
        f"strided loads: strides {', '.join(map(str, p.strides))}, {p.strided_elements:,} elements",
        f"launch overhead: {p.launches} tiny ops per repetition, eager and from a CUDA graph",
        f"host-device copies: {p.host_copy_B / 1e6:,.0f} MB, pinned and pageable (GPU only)",
        f"decoder: {s['layers']} layers, d {s['d']}, {s['params'] / 1e9:,.3f} B parameters; prefill of "
        f"{p.prefill_tokens} tokens (last and all logits); decode at (batch, context) "
        + ", ".join(f"({b}, {t})" for b, t in p.decode_grid) + ", eager, CUDA graph and attention alone",
        f"repetitions: {p.warmup} warm-ups, median of {p.reps}",
        f"peak memory on the device: about {peak_memory_B(p) / 1e9:,.1f} GB (--decoder small needs less)"])


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m infra_lib.gpu_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="the run folder to write (new or empty)")
    ap.add_argument("--backend", choices=BACKENDS, default="torch", help="torch (a CUDA GPU) or numpy (this CPU)")
    ap.add_argument("--quick", action="store_true", help="small sizes: seconds, to check the setup")
    ap.add_argument("--decoder", choices=sorted(DECODERS), help="the decoder to measure (default: llama3-8b on "
                    "a GPU, small on the CPU); small needs far less memory")
    ap.add_argument("--dry-run", action="store_true", help="say what would be measured and for how long")
    a = ap.parse_args(argv)
    p = plan(a.backend, a.quick, a.decoder)
    if a.dry_run:
        print(describe(p))
        est = estimate_s(p) if a.backend == "torch" else None
        print(f"estimated duration on an H100-class GPU: at least {est / 60:.1f} min (Python's own time not counted)"
              if est is not None else "duration on a CPU: about a minute (full) or seconds (--quick)")
        return 0
    if not a.out:
        ap.error("--out is required (or --dry-run)")
    try:
        be = backend(a.backend)
    except RuntimeError as err:
        print(f"gpu_bench: {err}", file=sys.stderr)
        return 2
    run = measure(be, p, log=lambda s: print(f"[gpu_bench] {s}", file=sys.stderr, flush=True))
    out = write(run, a.out)
    print(f"wrote {out} ({run['run']['elapsed_s']:.0f} s); point a chapter at it with MEASURED_RUN = {str(out)!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
