"""Explore-the-assumptions widgets: in a reader's Jupyter, and live on the website in the browser.

One module per chapter, each a tuple of controls and a pure summary function on the shared
scaffold :mod:`infra_lib.widgets.panel` (:mod:`.request` for the overview, :mod:`.wafer` for
chapter 1, and so on; :mod:`.quiz` is the review chapter's answer box). A chapter's widget cell
(tagged ``skip-execution``) is, with the chapter's module::

    from infra_lib.widgets.wafer import explore
    explore(LANG)

(not ``from infra_lib.widgets import launch``: chapter 2 has a variable called ``launch``).

The static pages hide a widget's output; their "run live in your browser" link opens the
chapter's widget cells in JupyterLite, in Pyodide (book/tools/lite.py). So a widget module and
everything it calls stay pure Python: no numpy or matplotlib (tests/test_widgets_pure.py).
"""
