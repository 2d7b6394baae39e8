"""Chapter 9's questions: bits, savings, block scales and accuracy (09_quantization).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
from .. import models, quant_storage as quantization, units  # pure: runs in the browser
from ..exercises import Answer, Param
from .core import Question, _mc, _num, common

FILE = "09_quantization"   # the chapter these questions test: its file in _toc.yml
KEY = "ch9"   # in the ids of its questions (rv_ch9_q1) and the review's label for them (rv-ch9)


def questions() -> list[Question]:
    """The questions that test 09_quantization (reads the registry)."""
    c = common()
    return [
        _num("rv_ch9_q1", KEY, "ch9-bits", "interview",
             {"params_b": Param(70, "billion parameters", 7, 400, integer=True),
              "bits": Param(quantization.storage_format("int4_g128_z4").bits_per_param, "bits per value", 3, 16)},
             lambda params_b, bits: {"gb": Answer(quantization.weight_B_at_bits(params_b * 1e9, bits) / units.GB, "GB"),
                                     "bpb": Answer(units.BITS_PER_BYTE, "bits", rel_tol=0),
                                     "bf16": Answer(models.weight_B(params_b * 1e9) / units.GB, "GB")},
             "gb",
             ("A {params_b:.0f}B model is stored at {bits:.2f} bits per weight (scales included). How many GB do its weights take?",
              "一个 {params_b:.0f}B 的模型以每个权重 {bits:.2f} 位（含缩放因子）存储。权重占多少 GB？"),
             ("Parameters × bits / {bpb:.0f}.", "参数量 × 位数 / {bpb:.0f}。"),
             ("**{gb:,.1f} GB**, against {bf16:,.0f} GB in BF16.", "**{gb:,.1f} GB**，BF16 则是 {bf16:,.0f} GB。")),

        _num("rv_ch9_q2", KEY, "ch9-savings", "self-check",
             {"bits": Param(4.5, "bits per value", 3, 16), "bw": Param(c.h100_bw, "TB/s", scale=1e12),
              "params_b": Param(70, "billion parameters", 7, 400, integer=True), "bf16": Param(16, "bits")},
             lambda bits, bw, params_b, bf16: {"gain": Answer(bf16 / bits, "×"),
                                       "tok": Answer(quantization.decode_ceiling_at_bits_tok_s(params_b * 1e9, bits, bw), "tokens/s")},
             "gain",
             ("Weights go from BF16 to {bits:.2f} bits each. By how much does the batch-one decode ceiling of a {params_b:.0f}B "
              "model rise, if the KV cache is negligible?",
              "权重从 BF16 改为每个 {bits:.2f} 位。KV cache 忽略不计时，一个 {params_b:.0f}B 模型单请求 decode 的上限变成原来的多少倍？"),
             ("The ceiling is bandwidth over weight bytes.", "上限是带宽除以权重字节数。"),
             ("{bf16:.0f} bits / {bits:.2f} = **{gain:.2f}×**, {tok:,.0f} tokens/s at {bw:.2f} TB/s.",
              "{bf16:.0f} 位 / {bits:.2f} = **{gain:.2f}×**，在 {bw:.2f} TB/s 下每秒 {tok:,.0f} 个 token。")),

        _num("rv_ch9_q3", KEY, "ch9-bits", "interview",
             {"sc": Param(8, "bits", 8, 16, integer=True), "el": Param(4, "bits"),
              "share": Param(0.1, "fraction", 0.05, 0.5)},
             lambda sc, el, share: {
                 "block": Answer(sc / (share * el), "values"),
                 "bits": Answer(quantization.bits_per_param(int(el), sc, round(sc / (share * el))), "bits")},
             "block",
             ("A {el:.0f}-bit format shares one {sc:.0f}-bit scale per block of values. Smaller blocks fit outliers better, "
              "and a scale shared by many values costs next to nothing. Below what block size do the scales cost more "
              "than {share:.0%} of the element bits?",
              "一种 {el:.0f} 位格式每块数值共享一个 {sc:.0f} 位缩放因子。块越小越能贴合离群值，而一个缩放因子由很多值分摊时几乎不占位。"
              "块小于多少个值时，缩放因子的开销会超过元素位数的 {share:.0%}？"),
             ("A block of $g$ values adds {sc:.0f} / $g$ bits to each value; set that equal to {share:.0%} of {el:.0f} bits.",
              "一块 $g$ 个值，每个值多出 {sc:.0f} / $g$ 位；令它等于 {el:.0f} 位的 {share:.0%}。"),
             ("{sc:.0f} / $g$ = {share:.0%} × {el:.0f} gives $g$ = **{block:,.0f} values** ({bits:.2f} bits per value). Above "
              "that, halving the block costs little; below it, every halving doubles the scales' share: the conclusion "
              "that smaller blocks are better flips when their bits are counted.",
              "{sc:.0f} / $g$ = {share:.0%} × {el:.0f}，解得 $g$ = **{block:,.0f}** 个值（每个值 {bits:.2f} 位）。块比这大时，"
              "再减半代价不大；比这小时，每减半一次，缩放因子的占比就翻一倍：把位数算进去，“块越小越好”的结论就翻转了。"),
             flip=True),

        _num("rv_ch9_q4", KEY, "ch9-savings", "self-check",
             {"kv_gb": Param(40, "GB", 1, 200), "w_gb": Param(35, "GB", 5, 200)},
             lambda kv_gb, w_gb: {"share": Answer(kv_gb / (kv_gb + w_gb), "fraction"), "half": Answer(kv_gb / 2, "GB"),
                                  "gain": Answer((kv_gb + w_gb) / (kv_gb / 2 + w_gb), "×")},
             "gain",
             ("A batched decode step reads {w_gb:.0f} GB of quantized weights and {kv_gb:.0f} GB of KV cache. Halving the KV "
              "bytes (FP8 KV), how much faster is the step if it stays bandwidth-bound?",
              "一个 batch 的一步 decode 要读 {w_gb:.0f} GB 的量化权重和 {kv_gb:.0f} GB 的 KV cache。把 KV 字节减半（FP8 KV），如果这一步仍受带宽限制，速度变成原来的多少倍？"),
             ("Time is proportional to bytes read.", "时间与读取的字节数成正比。"),
             ("KV is {share:.0%} of the bytes; ({w_gb:.0f} + {kv_gb:.0f}) / ({w_gb:.0f} + {half:.1f}) = **{gain:.2f}×**.",
              "KV 占字节数的 {share:.0%}；({w_gb:.0f} + {kv_gb:.0f}) / ({w_gb:.0f} + {half:.1f}) = **{gain:.2f}×**。")),

        _mc("rv_ch9_q5", KEY, "ch9-compute", "interview",
            ("Why does weight-only quantization speed up decode more than prefill?", "为什么只量化权重时，decode 得到的加速比预填充大？"),
            (("Decode is bandwidth-bound; prefill is compute-bound", "decode 访存受限，预填充算力受限"),
             ("It shrinks the KV cache, which only decode reads", "它缩小了 KV cache，而只有 decode 读 KV cache",
              "That weight-only quantization shrinks the KV cache: the KV cache keeps its own format; only the weight "
              "bytes shrink.", "以为只量化权重也会缩小 KV cache：KV cache 保持原来的格式，变小的只有权重字节。"),
             ("Its kernels compute in low-bit arithmetic, which only decode uses", "它的 kernel 用低位宽运算，而只有 decode 用得上",
              "That weight-only quantization does low-bit arithmetic: the weights are dequantized to BF16 before the "
              "matmul, so the FLOP and their speed stay the same; only the bytes shrink.",
              "以为只量化权重就是低位宽运算：权重在矩阵乘之前先反量化回 BF16，运算量和运算速度都不变，变少的只是字节。")), 0,
            ("Fewer weight bytes shorten a memory-bound step; prefill's matmuls are above the ridge, and dequantizing weights "
             "to BF16 does not reduce their FLOP.", "权重字节少了，访存受限的步骤就快了；预填充的矩阵乘在屋脊点以上，把权重反量化回 BF16 并不减少运算量。"),
            ("Which phase is below the ridge point?", "哪个阶段在屋脊点以下？")),

        _mc("rv_ch9_q6", KEY, "ch9-accuracy", "self-check",
            ("What do block scales (MXFP4, NVFP4) protect against?", "块缩放因子（MXFP4、NVFP4）防的是什么？"),
            (("Rounding error on every value", "每个值的舍入误差",
              "That a scale removes rounding: every value still rounds to a low-bit code; a block scale only keeps the "
              "steps fine for the values far from an outlier.", "以为缩放因子能消除舍入：每个值仍要舍入到低位宽的码值；块缩放因子只是让远离离群值的那些值保持精细的步长。"),
             ("One outlier forcing a coarse scale on the whole tensor", "一个离群值逼得整个张量的缩放因子变大、量化变粗"),
             ("Overflow of the accumulator", "累加器溢出",
              "That scales guard the sums: the accumulator is a separate, wider format (FP32 in Tensor Cores); block "
              "scales act on the stored values.", "以为缩放因子保护的是累加：累加器是另一种更宽的格式（Tensor Core 里是 FP32）；块缩放因子作用于存储的值。")), 1,
            ("With a scale per small block, an outlier only coarsens its own block; the rest keep fine steps.",
             "每个小块各有一个缩放因子，离群值只会让它所在的那一块变粗，其余块仍保持精细的量化步长。"),
            ("What does a single per-tensor scale have to cover?", "整个张量只用一个缩放因子时，它要覆盖什么？")),

        _num("rv_ch9_q7", KEY, "ch9-accuracy", "self-check",
             {"bits": Param(4, "bits", 2, 8, integer=True)},
             lambda bits: {"qmax": Answer(quantization.int_qmax(bits), "codes", rel_tol=0),
                           "levels": Answer(2 * quantization.int_qmax(bits) + 1, "codes", rel_tol=0)},
             "qmax",
             ("Symmetric signed INT{bits:.0f} quantization maps the largest magnitude of a group to the largest code. What is "
              "that code?",
              "对称有符号 INT{bits:.0f} 量化把一组数里绝对值最大的那个映射到最大的码值。这个码值是多少？"),
             ("Half the codes are negative; symmetric quantization leaves the most negative one unused.",
              "一半的码值是负数；对称量化不用最小的那个负码值。"),
             ("**{qmax:.0f}**: the codes run from −{qmax:.0f} to {qmax:.0f}, {levels:.0f} levels in all.",
              "**{qmax:.0f}**：码值从 −{qmax:.0f} 到 {qmax:.0f}，共 {levels:.0f} 级。")),

        _mc("rv_ch9_q8", KEY, "ch9-bits", "interview",
            ("FP8 (E4M3) and INT8 both store a weight in one byte. What separates them?",
             "FP8（E4M3）和 INT8 都用一个字节存一个权重。两者的区别在哪里？"),
            (("INT8 is more accurate for every tensor", "INT8 对任何张量都更精确",
              "That more levels always means less error: INT8's evenly spaced levels win on evenly spread values, but an "
              "outlier stretches its one scale and crushes the small values.",
              "以为取值级别多误差就一定小：INT8 均匀分布的级别在数值分布均匀时占优，但一个离群值就会把唯一的缩放因子拉大，压扁小数值。"),
             ("FP8 halves the weight bytes against INT8", "FP8 的权重字节数是 INT8 的一半",
              "That the formats differ in size: both are eight bits per value; they differ in how the levels are spread.",
              "以为两种格式大小不同：两者都是每个值 8 位；区别在于级别如何分布。"),
             ("FP8 spaces its levels logarithmically, INT8 evenly", "FP8 的级别按对数分布，INT8 则均匀分布")), 2,
            ("Same bytes, so the same memory saving; FP8's exponent gives a wide range with relative precision, INT8 a "
             "uniform grid over one scale. Which errs less depends on the tensor's distribution, and the GPU's Tensor Cores "
             "decide which one it can compute in.",
             "字节数相同，省下的显存也一样；FP8 的指数位带来宽动态范围和相对精度，INT8 则是一个缩放因子下的均匀网格。哪个误差更小取决于张量的分布，"
             "而 GPU 的 Tensor Core 决定它能用哪种格式计算。"),
            ("Same number of bits: where are the levels?", "位数一样：取值级别落在哪里？")),

        _mc("rv_ch9_q9", KEY, "ch9-accuracy", "self-check",
            ("What do GPTQ and AWQ do differently to quantize weights to four bits?",
             "GPTQ 和 AWQ 把权重量化到 4 位时，各自的做法有何不同？"),
            (("GPTQ quantizes activations too, AWQ only weights", "GPTQ 连激活也量化，AWQ 只量化权重",
              "That GPTQ is a weight-and-activation method: both are weight-only (W4A16); activations stay in BF16.",
              "以为 GPTQ 同时量化权重和激活：两者都只量化权重（W4A16），激活保持 BF16。"),
             ("GPTQ corrects later columns; AWQ scales salient channels", "GPTQ 修正后面的列；AWQ 放大重要的通道"),
             ("AWQ needs no calibration data, GPTQ needs a training run", "AWQ 不需要校准数据，GPTQ 需要重新训练",
              "That one of them retrains: both use a small calibration set and no training; GPTQ for second-order "
              "information, AWQ for activation sizes.",
              "以为其中一个要重新训练：两者都只用一小份校准数据，不需要训练；GPTQ 用它求二阶信息，AWQ 用它看激活大小。")), 1,
            ("GPTQ quantizes one column at a time and updates the not-yet-quantized columns from second-order information; "
             "AWQ protects the weights that multiply large activations by scaling their input channels. Both usually keep "
             "groups of scales and run as W4A16.",
             "GPTQ 一次量化一列，并用二阶信息更新尚未量化的列；AWQ 按激活的大小找出重要的权重，把对应输入通道放大来保护它们。"
             "两者通常都按组保存缩放因子，以 W4A16 方式部署。"),
            ("Where does each method spend its calibration data?", "两种方法各自把校准数据用在哪里？")),

        _mc("rv_ch9_q10", KEY, "ch9-accuracy", "interview",
            ("A four-bit model's perplexity is within a hair of the BF16 model's, yet some users report changed answers. What "
             "explains it?",
             "一个 4 位模型的困惑度和 BF16 模型几乎一样，却有用户反映回答变了。怎么解释？"),
            (("The users are wrong: equal perplexity means equal answers", "用户错了：困惑度相同就意味着回答相同",
              "That perplexity pins down every answer: it averages log-likelihood over many tokens; individual answers can "
              "flip while the average barely moves.",
              "以为困惑度能确定每个回答：它是对大量 token 的对数似然取平均；平均值几乎不动时，个别回答仍可能翻转。"),
             ("Perplexity is measured on longer texts than prompts", "困惑度是在比 prompt 更长的文本上测的",
              "That the length of the text is the gap: the gap is between an average over tokens and the answers on a "
              "task; a task must be measured on its own.",
              "以为差别在于文本长度：差别在于对 token 取平均和在任务上给出的回答不是一回事；任务要单独测。"),
             ("An average hides answers that flip both ways", "平均值掩盖了双向翻转的回答")), 2,
            ("Perplexity is sensitive and cheap but an average; task accuracy is what users notice, is noisier, and "
             "answers flip right-to-wrong and wrong-to-right. Measure both on your own tasks, before and after.",
             "困惑度灵敏、便宜，但只是平均值；任务准确率才是用户感受到的，它更嘈杂，回答会从对变错、也会从错变对。"
             "要在自己的任务上量化前后都测两者。"),
            ("What does an average over tokens not show?", "对 token 取的平均值看不出什么？"), flip=True),

        _num("rv_ch9_q11", KEY, "ch9-kv", "interview",
             {"context": Param(32768, "tokens", 1024, 131072, integer=True), "wbits": Param(8, "bits per weight", 4, 16, integer=True),
              "kvbits": Param(16, "bits per value", 4, 16, integer=True)},
             lambda context, wbits, kvbits: {
                 "batch": Answer(quantization.kv_weight_crossover_batch(models.LLAMA3_70B, wbits, kvbits, context), "requests"),
                 "w_gb": Answer(quantization.weight_B_at_bits(models.LLAMA3_70B.n_params, wbits) / units.GB, "GB"),
                 "kv_mb": Answer(models.LLAMA3_70B.kv_B_per_token(kvbits / units.BITS_PER_BYTE) * context / units.MB, "MB")},
             "batch",
             ("Llama-3-70B with {wbits:.0f}-bit weights serves requests of {context:,.0f} tokens with a {kvbits:.0f}-bit KV cache. "
              "From what batch does a decode step read more KV bytes than weight bytes?",
              "Llama-3-70B 用 {wbits:.0f} 位权重、{kvbits:.0f} 位 KV cache，服务每个 {context:,.0f} 个 token 的请求。批大小从多大起，"
              "一步 decode 读的 KV 字节会多于权重字节？"),
             ("Weight bytes over the KV bytes of one request: a key and a value for every layer, KV head and token.",
              "权重字节除以一个请求的 KV 字节：每一层、每个 KV 头、每个 token 各一个 key 和一个 value。"),
             ("{w_gb:,.1f} GB / {kv_mb:,.0f} MB = **{batch:.1f} requests**; beyond that, shrinking the cache shortens the step more "
              "than shrinking the weights.",
              "{w_gb:,.1f} GB / {kv_mb:,.0f} MB = **{batch:.1f} 个请求**；再往上，压缩 KV cache 比压缩权重更能缩短每一步。")),

        _num("rv_ch9_q12", KEY, "ch9-bits", "self-check",
             {"g": Param(128, "values", 16, 1024, integer=True), "sc": Param(16, "bits"),
              "z": Param(quantization.PACKED_ZERO_BITS, "bits"), "el": Param(4, "bits"), "per": Param(8, "zeros")},
             lambda g, sc, z, el, per: {
                 "bits": Answer(quantization.bits_per_param(int(el), int(sc), g, zero_point_bits=int(z)), "bits"),
                 "fp16z": Answer(quantization.bits_per_param(int(el), int(sc), g, zero_point_bits=int(sc)), "bits")},
             "bits",
             ("A GPTQ or AWQ checkpoint stores {el:.0f}-bit integer weights with a {sc:.0f}-bit scale and a {z:.0f}-bit zero point "
              "(packed {per:.0f} to an int32) per group of {g:.0f}. How many bits does each weight cost?",
              "GPTQ 或 AWQ 的检查点存 {el:.0f} 位整数权重，每 {g:.0f} 个一组，带一个 {sc:.0f} 位缩放因子和一个 {z:.0f} 位零点"
              "（每 {per:.0f} 个打包进一个 int32）。每个权重要多少位？"),
             ("Element bits + (scale + zero) / group.", "元素位数 + （缩放因子 + 零点）/ 组大小。"),
             ("{el:.0f} + ({sc:.0f} + {z:.0f}) / {g:.0f} = **{bits:.3f} bits**; with an FP16 zero point it would be {fp16z:.3f}.",
              "{el:.0f} + （{sc:.0f} + {z:.0f}）/ {g:.0f} = **{bits:.3f} 位**；零点若用 FP16 存，则是 {fp16z:.3f} 位。")),

        _mc("rv_ch9_q13", KEY, "ch9-accuracy", "interview",
            ("A few activation channels are more than ten times larger than the rest. Why does FP8 E4M3 with one scale per tensor cope, "
             "where INT8 with one scale per token loses bits?",
             "激活里有几个通道比其余通道大一个数量级以上。为什么整个张量一个缩放因子的 FP8 E4M3 扛得住，而每个 token 一个缩放因子的 INT8 却要丢位？"),
            (("FP8 has more levels than INT8", "FP8 的取值级别比 INT8 多",
              "That FP8 has more codes: both have one byte of codes; FP8 spends them on a wider range with relative precision.",
              "以为 FP8 码值更多：两者都是一个字节，码值一样多；FP8 把它们花在更宽的范围和相对精度上。"),
             ("FP8 keeps the outlier channels in BF16", "FP8 把离群通道保留为 BF16",
              "That FP8 splits the product as LLM.int8() does: it quantizes every value, outliers included, to FP8.",
              "以为 FP8 像 LLM.int8() 那样拆分矩阵乘：它把每个值，包括离群值，都量化为 FP8。"),
             ("Each FP8 value carries its own exponent", "每个 FP8 值都带着自己的指数")), 2,
            ("INT8's one step per token is set by the outliers, so the ordinary values round to a few codes; an E4M3 value's "
             "rounding error is at most about a sixteenth of itself at every magnitude down to the smallest normal, so the outliers only push "
             "the others down a few binades.",
             "INT8 每个 token 只有一个量化步长，由离群值决定，普通的值就只剩几个码值；E4M3 的舍入误差在最小规格化数以上的任何量级都至多约为自身的十六分之一，"
             "离群值只是把其余的值往下推了几个二进制数量级。"),
            ("Where are FP8's levels, relative to a value's size?", "相对于数值本身的大小，FP8 的取值级别落在哪里？")),

        _num("rv_ch9_q14", KEY, "ch9-eval", "interview",
             {"n": Param(quantization.GSM8K_TEST_QUESTIONS, "questions", 200, 20000, integer=True),
              "acc": Param(0.9, "fraction", 0.5, 0.9), "flips": Param(0.06, "fraction", 0.02, 0.2),
              "conf": Param(quantization.CONFIDENCE, "fraction")},
             lambda n, acc, flips, conf: {
                 "paired": Answer(quantization.Z_95 * quantization.score_difference_stderr(acc, acc, int(n), flips), "fraction"),
                 "unpaired": Answer(quantization.Z_95 * quantization.score_difference_stderr(acc, acc, int(n)), "fraction"),
                 "z": Answer(quantization.Z_95, "")},
             "paired",
             ("A quantized model and its BF16 original answer the same {n:,.0f} benchmark questions; the original gets {acc:.0%} "
              "of them right, and {flips:.0%} of the questions flip between the two. How far apart must their scores be before "
              "the difference is more than noise at {conf:.0%} confidence?",
              "一个量化模型和它的 BF16 原模型做同一套 {n:,.0f} 道基准题，原模型答对 {acc:.0%}，两者之间有 {flips:.0%} 的题答案翻转。"
              "两个分数要差多少，差异才在 {conf:.0%} 置信度下不只是噪声？"),
             ("On the same questions only the flips vary: with equal scores the difference has a standard error of √(f / n).",
              "同一批题上，变化的只有翻转的那些：两个分数相等时，差值的标准误是 √(f / n)。"),
             ("{z:.2f} × √({flips:.2f} / {n:,.0f}) = **{paired:.1%}**; scored on independent samples of questions, the two "
              "would have to differ by {unpaired:.1%}. Pairing is what makes a small loss measurable.",
              "{z:.2f} × √({flips:.2f} / {n:,.0f}) = **{paired:.1%}**；若在互相独立的题目样本上打分，两者要差 {unpaired:.1%}。"
              "正是配对让小的损失测得出来。")),

        _mc("rv_ch9_q15", KEY, "ch9-landscape", "self-check",
            ("You serve a dense model on H100s and want its weights stored in four bits. Which method makes decode faster there?",
             "你在 H100 上部署一个稠密模型，想把权重存成 4 位。哪种方法能让它在 H100 上 decode 得更快？"),
            (("W4A4 by rotation (QuaRot, SpinQuant), on INT4 Tensor Cores", "旋转后的 W4A4（QuaRot、SpinQuant），用 INT4 Tensor Core 运算",
              "That every recent GPU has INT4 Tensor Cores: Ampere and Ada do, Hopper has none, so the 4-bit arithmetic has "
              "nothing to run on.",
              "以为较新的 GPU 都有 INT4 Tensor Core：Ampere 和 Ada 有，Hopper 没有，4 位运算无处可跑。"),
             ("NVFP4 W4A4, on FP4 Tensor Cores", "NVFP4 的 W4A4，用 FP4 Tensor Core 运算",
              "That FP4 arithmetic came before Blackwell: FP4 Tensor Cores are Blackwell's; on Hopper NVFP4 weights are "
              "expanded before the arithmetic like any other 4-bit format.",
              "以为 Blackwell 之前就有 FP4 运算：FP4 Tensor Core 是 Blackwell 才有的；在 Hopper 上，NVFP4 权重也和别的 4 位格式一样，要先展开再运算。"),
             ("W4A16 (GPTQ, AWQ) with a kernel that expands the weights in registers",
              "W4A16（GPTQ、AWQ），配合在寄存器里展开权重的 kernel")), 2,
            ("Decode is bound by reading the weights, so four-bit storage cuts the bytes, and the step, to about a quarter of "
             "BF16's; Marlin and Machete expand the weights to BF16 in registers and use the BF16 Tensor Cores Hopper has. The "
             "gain lasts while decode stays memory-bound: at large batches the BF16 arithmetic catches up.",
             "decode 的瓶颈是读权重，4 位存储把要读的字节数降到 BF16 的四分之一左右，每步耗时也随之降到约四分之一；Marlin 和 Machete 在寄存器里"
             "把权重展开成 BF16，再交给 Hopper 的 BF16 Tensor Core 计算。只要 decode 还是访存受限，这份收益就在；批大小一大，"
             "BF16 的计算时间追上读权重的时间，收益就没了。"),
            ("Which four-bit arithmetic do Hopper's Tensor Cores have?", "Hopper 的 Tensor Core 有哪种 4 位运算？")),
    ]
