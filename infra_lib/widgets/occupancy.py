"""Chapter 5 widget: the occupancy calculator. Threads per block, registers per thread, shared
memory per block and compute capability give the resident blocks and warps per SM, the
occupancy and the resource that limits it.

Calls :func:`infra_lib.occupancy.occupancy` (pure Python, no numpy); the compute capabilities are
the registry's (:func:`infra_lib.occupancy.compute_capabilities`).
"""
from typing import Any

from .. import _check, occupancy as occ
from ..i18n import t
from .panel import Control, Panel, Result

CCS = tuple(float(cc) for cc in occ.compute_capabilities())     # 6.0 ... 12.0

CONTROLS = (
    Control("threads", "ch5_w_threads", int, 256, 32, 1024, 32, aliases=("threads_per_block",)),
    Control("registers", "ch5_w_registers", int, 64, 16, 255, 1, aliases=("registers_per_thread",)),
    Control("smem_kib", "ch5_w_smem", int, 0, 0, 227, 1, aliases=("smem_B",)),
    Control.choice("cc", "ch5_w_cc", CCS, 9.0),
)


def summary(lang: str, threads: int, registers: int, smem_kib: float, cc: float) -> Result:
    """Resident blocks and warps, occupancy, the limiter, and the blocks each resource allows.

    >>> summary("en", 128, 37, 0, 7.0).rows[0][1]
    '12 blocks, 48 warps'
    """
    threads = _check.count("threads", threads, "threads per block")
    registers = _check.count("registers", registers, "registers per thread")
    smem_B = _check.non_negative("smem_kib", smem_kib, "KiB") * 1024
    cc_name = f"{_check.number('cc', cc, '(a compute capability)'):.1f}"
    lim = occ.limits(cc_name)
    wpb = -(-threads // lim.warp_size)
    rpw = occ.registers_per_warp(registers, cc_name)
    block_regs = rpw * -(-wpb // lim.warp_granularity) * lim.warp_granularity
    if smem_B > lim.max_smem_per_block_B:
        return Result(((t("ch5_w_no_launch", lang), t("ch5_w_too_much_smem", lang),
                        f"{smem_B / 1024:,.0f} KiB > {lim.max_smem_per_block_B / 1024:,.0f} KiB"),))
    if block_regs > lim.max_registers_per_block:
        return Result(((t("ch5_w_no_launch", lang), t("ch5_w_too_many_regs", lang),
                        f"{block_regs:,} > {lim.max_registers_per_block:,}"),))
    o = occ.occupancy(threads, registers, int(smem_B), cc_name)
    names = {r: t(f"ch5_res_{r}", lang) for r in occ.RESOURCES}
    sep, colon = ("，", "：") if lang == "zh" else (", ", ": ")
    rows = [
        (t("ch5_w_resident", lang), f"{o.blocks} {t('ch5_w_blocks', lang)}{sep}{o.warps} {t('ch5_w_warps', lang)}",
         f"{t('ch5_w_of', lang)} {o.max_warps} {t('ch5_w_warps', lang)}"),
        (t("ch5_w_occupancy", lang), f"{o.occupancy:.1%}", f"{t('ch5_w_limiter', lang)}{colon}"
         + " + ".join(names[r] for r in o.limiters)),
        (t("ch5_w_regs_warp", lang), f"{o.registers_per_warp:,}", f"{registers} × {lim.warp_size} = "
         f"{registers * lim.warp_size:,} → {t('ch5_w_unit', lang, unit=lim.register_unit)}"),
        (t("ch5_w_smem_block", lang), f"{o.smem_per_block_B:,} B", f"{t('ch5_w_reserved', lang)} "
         f"{lim.reserved_smem_per_block_B:,} B"),
    ]
    rows += [(t("ch5_w_blocks_by", lang, resource=names[r]), f"{o.blocks_by[r]}", "") for r in occ.RESOURCES]
    return Result(tuple(rows))


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """Sliders for threads, registers, shared memory and compute capability (an ipywidgets.VBox)."""
    return PANEL.build(lang)
