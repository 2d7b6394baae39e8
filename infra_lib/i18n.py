"""Labels for figures and widgets in the page's language ('en' or 'zh').

Prose lives in the chapters; only strings that code draws (axis labels, legends, widget
captions) live here, so the English and Chinese notebooks can share identical code cells.
"""
from . import _check

LANGUAGES = ("en", "zh")

STRINGS = {
    "intensity": {"en": "Arithmetic intensity (FLOP per byte)", "zh": "算术强度（FLOP/字节）"},
    "attainable": {"en": "Attainable throughput (TFLOP/s)", "zh": "可达算力（TFLOP/s）"},
    "ridge": {"en": "ridge point", "zh": "屋脊点"},
    "prefill": {"en": "prefill", "zh": "prefill"},
    "decode": {"en": "decode (batch 1)", "zh": "decode（batch 1）"},
    "decode_batch": {"en": "decode (batch {batch})", "zh": "decode（batch {batch}）"},
    "memory_bound": {"en": "bandwidth-bound", "zh": "受带宽限制"},
    "compute_bound": {"en": "compute-bound", "zh": "受算力限制"},
    "batch": {"en": "Requests decoded together (batch size)", "zh": "同时 decode 的请求数（batch）"},
    "step_ms": {"en": "Step time = inter-token latency (ms)", "zh": "每步时间 = token 间隔（ms）"},
    "throughput": {"en": "Throughput (tokens/s)", "zh": "吞吐（tokens/s）"},
    "kv_share": {"en": "KV share of bytes read", "zh": "KV 占读取字节的比例"},
    "per_direction": {"en": "Bandwidth per direction (GB/s, log scale)", "zh": "单向带宽（GB/s，对数坐标）"},
    "hbm": {"en": "HBM3", "zh": "HBM3 显存"},
    "nvlink": {"en": "NVLink 4", "zh": "NVLink 4"},
    "pcie": {"en": "PCIe Gen5 x16", "zh": "PCIe Gen5 x16"},
    "nic": {"en": "400 Gb/s NIC", "zh": "400 Gb/s 网卡"},
    "quoted": {"en": "as quoted", "zh": "厂商报的数"},
    "converted": {"en": "per direction, bytes", "zh": "换算成单向字节"},
    "predicted": {"en": "model (copy-bandwidth efficiency)", "zh": "模型（按实测拷贝带宽折算）"},
    "measured_graph": {"en": "measured, CUDA graph", "zh": "实测，CUDA Graph"},
    "measured_eager": {"en": "measured, eager", "zh": "实测，eager"},
    # widget
    "w_batch": {"en": "batch", "zh": "batch"},
    "w_prompt": {"en": "prompt tokens", "zh": "prompt 长度"},
    "w_kv": {"en": "KV per request (GB)", "zh": "每请求 KV（GB）"},
    "w_params": {"en": "parameters (billions)", "zh": "参数量（十亿）"},
    "w_bw": {"en": "bandwidth (TB/s)", "zh": "显存带宽（TB/s）"},
    "w_bw_eff": {"en": "bandwidth efficiency", "zh": "带宽利用率"},
    "w_peak": {"en": "peak (TFLOP/s)", "zh": "峰值算力（TFLOP/s）"},
    "w_flop_eff": {"en": "compute efficiency", "zh": "算力利用率"},
    "w_prefill": {"en": "Prefill", "zh": "Prefill"},
    "w_step": {"en": "Decode step", "zh": "Decode 每步"},
    "w_itl": {"en": "inter-token latency", "zh": "token 间隔"},
    "w_tput": {"en": "throughput", "zh": "吞吐"},
    "w_kv_share": {"en": "KV share of bytes", "zh": "KV 占读取字节"},
    "w_bound": {"en": "limited by", "zh": "瓶颈"},
    "w_error": {"en": "Cannot compute", "zh": "无法计算"},
    "compute": {"en": "compute", "zh": "算力"},
    "memory": {"en": "memory bandwidth", "zh": "显存带宽"},
}


def add_strings(strings):
    """Add labels for a chapter's figures or widgets: {key: {"en": ..., "zh": ...}}.

    Modules call this at import; a key that exists already, or a label missing a language,
    is an error.
    """
    for key, texts in strings.items():
        if key in STRINGS and STRINGS[key] != texts:
            raise ValueError(f"label {key!r} is already defined")
        if set(texts) != set(LANGUAGES):
            raise ValueError(f"label {key!r} needs exactly the languages {LANGUAGES}, got {sorted(texts)}")
        STRINGS[key] = texts


def t(key, lang, **fields):
    """The string ``key`` in language ``lang``, with ``{fields}`` filled in."""
    lang = _check.choice("lang", lang, LANGUAGES)
    if key not in STRINGS:
        raise KeyError(f"no label {key!r}; known labels: {', '.join(sorted(STRINGS))}")
    return STRINGS[key][lang].format(**fields)
