"""Explore-the-assumptions widgets, for readers who run the notebooks locally.

One module per topic, each a tuple of controls and a pure summary function on the shared
scaffold :mod:`infra_lib.widgets.panel`: :mod:`.request` (overview), :mod:`.wafer` (chapter 1),
:mod:`.launch` (chapter 2), :mod:`.latency` (chapter 3). A chapter's widget cell (tagged
``skip-execution``) is, with the chapter's module::

    from infra_lib.widgets.wafer import explore
    explore(LANG)

(not ``from infra_lib.widgets import launch``: chapter 2 has a variable called ``launch``).

On the static website there is no Python kernel, so a widget could not recompute anything;
the chapters hide its output there and say how to run the notebook instead.
"""
