"""An upload button for a run of the reader's own GPU, for the live chapters.

The live pages (JupyterLite) run in the browser and read only the files of their own storage. A
reader who ran ``python -m infra_lib.gpu_bench --out my-gpu`` on their machine zips that folder
(``python -m zipfile -c my-gpu.zip my-gpu``) and uploads the zip here: :func:`receive` writes it
beside the notebook, unpacks and validates it (:func:`infra_lib.measurements.unpack` and
:func:`~infra_lib.measurements.validate`: a damaged or partial run is refused with a message that
names the file and the field), and says which name to give ``MEASURED_RUN``. The chapter's
widgets then read that run as they would in Jupyter.

:func:`receive` is a pure function of the file's name and bytes (tested without a kernel);
ipywidgets is imported only by :func:`upload`.
"""
import html
from pathlib import Path
from typing import Any

from .. import _check, measurements
from ..i18n import LANGUAGES

WORDS = {"en": {"button": "Upload a run (.zip)",
                "loaded": "Loaded {name}: {device}, {date}. Write MEASURED_RUN = \"{name}\" in this cell, run it, "
                          "and run the cells below it again.",
                "refused": "Not loaded: {why}",
                "not_zip": "{name} is not a .zip file: zip the run folder first (python -m zipfile -c my-gpu.zip my-gpu)"},
         "zh": {"button": "上传测量结果（.zip）",
                "loaded": "已载入 {name}（{device}，{date}）。在这个单元格里写 MEASURED_RUN = \"{name}\"，运行它，"
                          "再重新运行它下面的单元格。",
                "refused": "未能载入：{why}",
                "not_zip": "{name} 不是 .zip 文件：先把测量文件夹打成 zip（python -m zipfile -c my-gpu.zip my-gpu）"}}


def receive(name: str, content: bytes, lang: str = "en", folder: str | Path = ".") -> tuple[bool, str]:
    """Write the uploaded file ``name`` (its bytes ``content``) into ``folder``, unpack and validate
    the run; return (loaded, the message for the reader in ``lang``). Never raises on a bad file:
    what is wrong with it is the message."""
    lang = _check.choice("lang", lang, LANGUAGES)
    name = Path(_check.text("name", name)).name           # a file name, never a path
    if not isinstance(content, (bytes, bytearray, memoryview)):
        raise TypeError(f"content must be the file's bytes, got {type(content).__name__}")
    words = WORDS[lang]
    if not name.lower().endswith(".zip"):
        return False, words["not_zip"].format(name=name)
    path = Path(folder) / name
    path.write_bytes(bytes(content))
    try:
        run = measurements.unpack(path)
        meta = measurements.validate(run)["run"]
    except (measurements.RunError, ValueError, OSError) as err:
        return False, words["refused"].format(why=err)
    return True, words["loaded"].format(name=name, device=meta.get("device", "?"), date=meta.get("date", "?"))


def upload(lang: str = "en", folder: str | Path = ".") -> Any:
    """The upload button and its message (an ipywidgets.VBox)."""
    lang = _check.choice("lang", lang, LANGUAGES)
    import ipywidgets as w

    button = w.FileUpload(accept=".zip", multiple=False, description=WORDS[lang]["button"],
                          layout=w.Layout(width="auto"))
    out = w.HTML()

    def on_upload(change: dict[str, Any]) -> None:
        for f in change["new"] or ():
            ok, message = receive(f["name"], f["content"], lang, folder)
            colour = "#1a7f37" if ok else "#b42318"
            out.value = f"<span style='color:{colour}'>{html.escape(message)}</span>"
    button.observe(on_upload, names="value")
    return w.VBox([button, out])
