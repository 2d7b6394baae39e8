"""Chapter 5's questions: grids, coalescing, tiling, streams and occupancy (05_cuda).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
from .. import cuda, units
from ..exercises import Answer, Param
from .core import Question, _mc, _num

FILE = "05_cuda"   # the chapter these questions test: its file in _toc.yml
KEY = "ch5"   # in the ids of its questions (rv_ch5_q1) and the review's label for them (rv-ch5)


def questions() -> list[Question]:
    """The questions that test 05_cuda (reads the registry)."""
    return [
        _num("rv_ch5_q1", KEY, "ch5-vector-add", "self-check",
             {"n": Param(5000, "elements", 1000, 9999, integer=True),   # below 10,000: the Chinese edition writes larger counts in 万
              "tpb": Param(256, "threads per block", 32, 1024, integer=True)},
             lambda n, tpb: {"blocks": Answer(cuda.grid_blocks(n, tpb), "blocks", rel_tol=0),
                             "idle": Answer(cuda.idle_threads(n, tpb), "threads", rel_tol=0)},
             "blocks",
             ("A vector add over {n:,.0f} elements launches {tpb:.0f} threads per block. How many blocks does the grid need?",
              "对 {n:,.0f} 个元素做向量加法，每个线程块 {tpb:.0f} 个线程。网格（grid）需要多少个线程块？"),
             ("Round up: every element needs a thread.", "向上取整：每个元素都要有一个线程。"),
             ("⌈{n:,.0f} / {tpb:.0f}⌉ = **{blocks:,.0f} blocks**; {idle:.0f} threads of the last one find no element.",
              "⌈{n:,.0f} / {tpb:.0f}⌉ = **{blocks:,.0f} 个线程块**；最后一个线程块里有 {idle:.0f} 个线程分不到元素。")),

        _num("rv_ch5_q2", KEY, "ch5-coalescing", "interview",
             {"stride": Param(2, "elements", 2, 32, integer=True), "el_b": Param(4, "B"), "sector": Param(cuda.SECTOR_B, "B")},
             lambda stride, el_b, sector: {"useful": Answer(cuda.useful_fraction(stride, int(el_b), 32, int(sector)), "fraction")},
             "useful",
             ("A warp reads {el_b:.0f}-byte floats with a stride of {stride:.0f} elements. What fraction of the bytes moved in "
              "{sector:.0f}-byte sectors did the warp ask for?",
              "一个 warp 以 {stride:.0f} 个元素的步长读取 {el_b:.0f} 字节的 float。按 {sector:.0f} 字节扇区搬运的数据里，有多大比例是 warp 真正要的？"),
             ("Count the sectors the warp's addresses touch.", "数一数 warp 的地址落在多少个扇区里。"),
             ("**{useful:.1%}** of the moved bytes are used: the rest came along in the same sectors.",
              "搬运的字节里只有 **{useful:.1%}** 有用：其余是同一扇区里顺带搬来的。")),

        _num("rv_ch5_q3", KEY, "ch5-tiling", "self-check",
             {"tile": Param(128, "elements", 16, 256, integer=True)},
             lambda tile: {"ai": Answer(cuda.tile_intensity(tile, tile, 2), "FLOP/B")},
             "ai",
             ("A matmul kernel computes a square output tile of {tile:.0f} × {tile:.0f} in BF16. How many FLOP does it do per byte "
              "it loads?",
              "一个矩阵乘 kernel 每次计算 {tile:.0f} × {tile:.0f} 的方形输出块，数据为 BF16。它每加载一个字节做多少次浮点运算？"),
             ("Per step along k: two FLOP per output, and one column of the A tile and one row of the B tile loaded.",
              "k 每走一步：每个输出两次运算，加载 A 块的一列和 B 块的一行。"),
             ("Two FLOP per output for each step along k, over the bytes of one column of the A tile and one row of the B "
              "tile: **{ai:.0f} FLOP/B**. A bigger tile reuses each loaded value more.",
              "沿 k 每走一步，每个输出做两次运算，除以 A 块一列和 B 块一行的字节数：**每字节 {ai:.0f} 次**。块越大，每个加载的值复用得越多。")),

        _num("rv_ch5_q4", KEY, "ch5-streams", "interview",
             {"chunks": Param(4, "chunks", 2, 16, integer=True), "h2d": Param(2e-3, "ms", 0.5e-3, 5e-3, scale=1e-3),
              "k": Param(3e-3, "ms", 0.5e-3, 5e-3, scale=1e-3), "d2h": Param(1e-3, "ms", 0.5e-3, 5e-3, scale=1e-3)},
             lambda chunks, h2d, k, d2h: {"ms": Answer(cuda.overlapped_time_s(chunks, h2d, k, d2h) / units.MS, "ms"),
                                          "serial": Answer(chunks * (h2d + k + d2h) / units.MS, "ms")},
             "ms",
             ("Work is cut into {chunks:.0f} chunks on streams; each chunk copies in for {h2d:.1f} ms, computes {k:.1f} ms, "
              "copies out {d2h:.1f} ms. How long does the pipelined whole take, in ms?",
              "工作切成 {chunks:.0f} 块放到多个流上；每块拷入 {h2d:.1f} ms、计算 {k:.1f} ms、拷出 {d2h:.1f} ms。流水线化后总共要多少毫秒？"),
             ("The first chunk goes through every stage; each further chunk adds the slowest stage.",
              "第一块走完所有阶段；之后每多一块，加上最慢那个阶段的时间。"),
             ("**{ms:.1f} ms**, against {serial:.1f} ms one after another.", "**{ms:.1f} ms**，逐块串行则要 {serial:.1f} ms。")),

        _mc("rv_ch5_q5", KEY, "ch5-occupancy", "interview",
            ("Higher occupancy helps a kernel until…", "提高占用率对 kernel 有帮助，直到……"),
            (("every register is used", "所有寄存器都用上",
              "That occupancy means using every register: it counts resident warps; using many registers per thread is "
              "what limits it.", "以为占用率就是把寄存器用满：它数的是驻留的 warp；每个线程用的寄存器多，恰恰会压低占用率。"),
             ("the grid has more blocks than SMs", "网格的线程块数超过 SM 数",
              "That one block per SM is enough: a block per SM can leave most warp slots empty; what counts is the bytes "
              "in flight.", "以为每个 SM 有一个线程块就够了：一个线程块可能占不满 warp 槽位；要看的是在途字节数。"),
             ("enough bytes are in flight to cover the memory latency", "在途字节已经足以覆盖访存延迟")), 2,
            ("Occupancy is a means to keep loads in flight (Little's law); once they cover bandwidth × latency, more warps "
             "only compete for registers and cache.", "占用率只是让足够多的加载同时在途的手段（利特尔定律）；在途字节一旦覆盖了带宽 × 延迟，再多的 warp 只会争抢寄存器和缓存。"),
            ("What is occupancy for?", "占用率是用来做什么的？"), flip=True),

        _mc("rv_ch5_q6", KEY, "ch5-tiling", "self-check",
            ("Why do matmul kernels stage tiles in shared memory?", "矩阵乘 kernel 为什么要把数据块放进共享内存？"),
            (("To reuse each loaded value many times", "让每个加载进来的值复用多次"),
             ("To make each HBM read faster", "为了让每次 HBM 读取更快",
              "That shared memory speeds up HBM: each HBM read is as slow as before; there are fewer of them because each "
              "value is reused.", "以为共享内存能加快 HBM：每次 HBM 读取一样慢，只是因为复用，读的次数少了。"),
             ("To save registers", "为了省寄存器",
              "That tiles replace registers: the values still pass through registers on their way to the arithmetic; "
              "shared memory lets a block's threads share each loaded value.", "以为数据块能代替寄存器：数据仍要经过寄存器才能参与运算；共享内存让一个线程块的线程共用每个加载的值。")), 0,
            ("A tile loaded once feeds a whole row or column of outputs, raising FLOP per byte of HBM traffic.",
             "一个数据块加载一次，就能供整行或整列输出使用，每字节 HBM 访存对应的运算量就上去了。"),
            ("Think of arithmetic intensity.", "想想算术强度。")),

        _num("rv_ch5_q7", KEY, "ch5-coalescing", "interview",
             {"read": Param(200e9, "GB/s", 50e9, 500e9, scale=1e9), "write": Param(200e9, "GB/s", 50e9, 500e9, scale=1e9),
              "stride": Param(32, "elements", 2, 32, integer=True), "el_b": Param(4, "B"), "sector": Param(cuda.SECTOR_B, "B")},
             lambda read, write, stride, el_b, sector: {
                 "useful": Answer(cuda.useful_fraction(stride, int(el_b), 32, int(sector)), "fraction"),
                 "moved": Answer(cuda.sector_traffic_Bps(read, stride, write, int(el_b), int(sector)) / units.GB, "GB/s")},
             "moved",
             ("A kernel reads {el_b:.0f}-byte floats with a stride of {stride:.0f} elements at {read:.0f} GB/s of useful data and "
              "writes its output, coalesced, at {write:.0f} GB/s. Memory moves whole {sector:.0f}-byte sectors. How many GB/s does "
              "the memory actually move?",
              "一个 kernel 以 {stride:.0f} 个元素的步长读取 {el_b:.0f} 字节的 float，有用数据的读取速率为 {read:.0f} GB/s，"
              "输出以合并访问的方式写出，速率为 {write:.0f} GB/s。显存按 {sector:.0f} 字节的整扇区搬运。显存实际搬运多少 GB/s？"),
             ("Count reads and writes apart: the strided read drags in whole sectors, the coalesced write moves what it writes.",
              "读和写分开算：跨步读取会带进整个扇区，合并的写入只搬它写的字节。"),
             ("The read uses {useful:.1%} of each sector: {read:.0f} / {useful:.1%} + {write:.0f} = **{moved:,.0f} GB/s**.",
              "读取只用到每个扇区的 {useful:.1%}：{read:.0f} / {useful:.1%} + {write:.0f} = **{moved:,.0f} GB/s**。")),

        _num("rv_ch5_q8", KEY, "ch5-tiling", "interview",
             {"m": Param(4096, "rows", 256, 8192, integer=True), "n": Param(4096, "columns", 256, 8192, integer=True),
              "tile": Param(128, "elements"), "sms": Param(132, "SMs", 100, 160, integer=True)},
             lambda m, n, tile, sms: {
                 "tiles": Answer(cuda.output_tiles(m, n, int(tile), int(tile)), "tiles", rel_tol=0),
                 "waves": Answer(cuda.wave_quantization(cuda.output_tiles(m, n, int(tile), int(tile)), sms).waves, "waves", rel_tol=0),
                 "eff": Answer(cuda.wave_quantization(cuda.output_tiles(m, n, int(tile), int(tile)), sms).efficiency, "fraction")},
             "eff",
             ("A matmul's {m:,.0f} × {n:,.0f} output is cut into {tile:.0f} × {tile:.0f} tiles, one thread block each, one block "
              "per SM at a time on {sms:.0f} SMs. What share of the SM slots do its waves keep busy?",
              "一个矩阵乘的 {m:,.0f} × {n:,.0f} 输出切成 {tile:.0f} × {tile:.0f} 的块，每块一个线程块，{sms:.0f} 个 SM 上每个 SM 同时只跑一个线程块。"
              "这些波次让 SM 槽位忙碌的比例是多少？"),
             ("Tiles (rounded up in each dimension), then waves of one tile per SM, rounded up.",
              "先算块数（每个维度向上取整），再算波次：每个 SM 一块，向上取整。"),
             ("{tiles:,.0f} tiles in {waves:.0f} waves of {sms:.0f}: {tiles:,.0f} / ({waves:.0f} × {sms:.0f}) = **{eff:.1%}**; "
              "the last wave is the partly empty one.",
              "{tiles:,.0f} 个块分成 {waves:.0f} 波，每波 {sms:.0f} 个：{tiles:,.0f} / ({waves:.0f} × {sms:.0f}) = **{eff:.1%}**；"
              "空出来的是最后一波。"),
             valid=lambda v: v["waves"] >= 2 and v["eff"] < 1),

        _mc("rv_ch5_q9", KEY, "ch5-flash-attention", "interview",
            ("FlashAttention computes exact attention with the same matmul FLOPs as the three-kernel version (more, in the "
             "backward pass, where it recomputes the scores). Where does its speed-up come from?",
             "FlashAttention 算的是精确的注意力，矩阵乘的运算量和三个 kernel 的做法相同（反向传播重算分数时还更多）。它的加速从哪里来？"),
            (("It never writes the T × T scores to HBM", "它从不把 T × T 的分数矩阵写到 HBM"),
             ("It approximates the softmax with a cheaper function", "用更便宜的函数近似 softmax",
              "That FlashAttention is an approximation: its online softmax rescales running sums and gives the same result "
              "as the direct one, up to rounding.",
              "以为 FlashAttention 是近似算法：在线 softmax 只是对累加值做重新缩放，结果和直接计算一样，差别只在舍入。"),
             ("It skips the masked half of the scores, so it does far fewer FLOPs", "跳过被掩码遮住的一半分数，运算量少得多",
              "That the saving is arithmetic: skipping masked tiles saves at most half of a causal layer's score FLOPs, and "
              "the gain holds without a mask; what falls is the HBM traffic.",
              "以为省的是运算：跳过被掩码的块，最多只省下因果注意力一半的分数运算，而且没有掩码时照样加速；真正减少的是 HBM 访存。")),0,
            ("The three-kernel version writes and rereads S and P, 4T² values per head, so at long T it is memory-bound. "
             "The fused kernel streams tiles of K and V through shared memory and writes only O: its bytes grow as "
             "T² d / B_q, its intensity rises with the query block, and it can become compute-bound.",
             "三个 kernel 的做法要把 S 和 P 写出去再读回来，每个头 4T² 个值，所以 T 一长就访存受限。融合的 kernel 让 K 和 V 的块"
             "流经共享内存，只写出 O：字节数按 T² d / B_q 增长，算术强度随查询块变大而提高，kernel 可以变成算力受限。"),
            ("Count the bytes each version moves, not the FLOPs.", "比较两种做法搬运的字节数，而不是运算量。")),
    ]
