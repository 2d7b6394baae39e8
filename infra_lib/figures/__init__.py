"""Every figure of the course, one module per topic, all in one style.

:mod:`.style` holds what all figures share (colours, fonts, the CJK font, a missing glyph as
an error, :func:`.style.setup`); :mod:`.roofline` the one helper that draws a roof and its
ridge point, used by every roofline figure. Topic modules: :mod:`.inference` (the overview's
request), :mod:`.roofline`, :mod:`.interconnect`, :mod:`.fab`, :mod:`.memory`, :mod:`.cpu`, :mod:`.gpu`,
:mod:`.formats`, :mod:`.generations`, :mod:`.cuda`, :mod:`.performance`, :mod:`.frameworks`,
:mod:`.clusters`, :mod:`.quantization`. Each figure function takes ``lang``, draws every label with
:func:`infra_lib.i18n.t`, and returns a closed matplotlib Figure for the chapter to glue.
The concept modules of ``infra_lib`` never import matplotlib; only this package does.

In a chapter::

    from infra_lib import figures
    figures.style.setup(LANG)
    glue("ch1_fig_yield", figures.fab.yield_curves(d0, alpha, marks, LANG), display=False)
"""
from . import style  # noqa: F401  (first: selects the backend before pyplot is imported)
from . import cpu, fab, formats, gpu, inference, interconnect, memory, roofline  # noqa: F401
from . import clusters, cuda, frameworks, generations, performance, quantization  # noqa: F401

__all__ = ["style", "roofline", "inference", "interconnect", "fab", "memory", "cpu", "gpu", "formats",
           "generations", "cuda", "performance", "frameworks", "clusters", "quantization"]
